import * as grpc from '@grpc/grpc-js';
import type { boards } from '@flowboard/proto';
import {
  admin,
  call,
  createBoard,
  createStory,
  grpcError,
  listStories,
  newProjectId,
  reason,
  useBoardsService,
} from './harness';

useBoardsService();

/**
 * Tags over gRPC against real PostgreSQL (docs/compat.md §5.5): the repository, use cases and handlers
 * together.
 */

async function board(): Promise<number> {
  const projectId = newProjectId();
  await createBoard(projectId);
  return projectId;
}

const createTag = (project_id: number, name: string) =>
  call<boards.CreateTagResponse__Output>('CreateTag', { project_id, name }).then((r) => r.tag!);
const getTag = (project_id: number, tag: string) =>
  call<boards.GetTagResponse__Output>('GetTag', { project_id, tag }).then((r) => r.tag!);
const listTags = (project_id: number, extra: Partial<boards.ListTagsRequest> = {}) =>
  call<boards.ListTagsResponse__Output>('ListTags', { project_id, page: 1, page_size: 100, ...extra });
const storyTags = (project_id: number, story_id: number) =>
  call<boards.StoryTagsResponse__Output>('ListStoryTags', {
    project_id,
    story_id,
    page: 1,
    page_size: 100,
  }).then((r) => r.tags.map((t) => t.name));
const tagStories = (project_id: number, tag: string, where = '') =>
  call<boards.TagStoriesResponse__Output>('ListTagStories', {
    project_id,
    tag,
    where,
    page: 1,
    page_size: 100,
  });
const linkCount = async (projectId: number) =>
  Number(
    (
      await admin.query<{ n: string }>('SELECT count(*) AS n FROM story_tags WHERE project_id = $1', [
        projectId,
      ])
    ).rows[0]?.n,
  );
const ids = (items: Array<{ id: number }>) => items.map((i) => i.id);

describe('tags over gRPC and PostgreSQL', () => {
  it('creates trimmed names, unique per project ignoring case (409), found by id or name', async () => {
    const projectId = await board();
    const tag = await createTag(projectId, '  Come On ');
    expect(tag.name).toBe('Come On');
    const clash = await grpcError(createTag(projectId, 'COME ON'));
    expect(clash.code).toBe(grpc.status.ABORTED);
    expect(reason(clash)).toBe('conflict');
    // Another project may use the same name.
    const other = await board();
    expect((await createTag(other, 'come on')).name).toBe('come on');

    expect(await getTag(projectId, String(tag.id))).toEqual(tag);
    expect(await getTag(projectId, 'come on')).toEqual(tag);
    expect(await getTag(projectId, ' COME ON ')).toEqual(tag);
    expect((await grpcError(getTag(other, String(tag.id)))).code).toBe(grpc.status.NOT_FOUND);
    expect((await grpcError(getTag(projectId, 'nope'))).code).toBe(grpc.status.NOT_FOUND);
    expect((await grpcError(createTag(projectId, '   '))).code).toBe(grpc.status.INVALID_ARGUMENT);
  });

  it('a number in a path is tried as an id first, then as a name', async () => {
    const projectId = await board();
    const first = await createTag(projectId, 'first');
    const namedLikeFirst = await createTag(projectId, String(first.id));
    expect(await getTag(projectId, String(first.id))).toEqual(first);
    const bigName = await createTag(projectId, '987654321098765');
    expect(await getTag(projectId, '987654321098765')).toEqual(bigName);
    expect(namedLikeFirst.id).not.toBe(first.id);
  });

  it('lists by id with paging; where has no properties', async () => {
    const projectId = await board();
    const made = [];
    for (const name of ['c', 'a', 'b']) made.push(await createTag(projectId, name));
    const all = await listTags(projectId);
    expect(all.total_items).toBe(3);
    expect(ids(all.tags)).toEqual(ids(made));
    const second = await listTags(projectId, { page: 2, page_size: 2 });
    expect(second.total_items).toBe(3);
    expect(second.tags.map((t) => t.name)).toEqual(['b']);
    const bad = await grpcError(listTags(projectId, { where: 'name:a' }));
    expect(reason(bad)).toBe('invalid-filter');
  });

  it('rename keeps the tag on its stories; a taken name → 409; a case change of its own name is fine', async () => {
    const projectId = await board();
    const tag = await createTag(projectId, 'old');
    await createTag(projectId, 'taken');
    const story = await createStory({ project_id: projectId, tags: [{ id: tag.id, name: '' }] });
    const renamed = await call<boards.UpdateTagResponse__Output>('UpdateTag', {
      project_id: projectId,
      tag: 'old',
      update_mask: ['name'],
      name: ' new ',
    });
    expect(renamed.tag).toEqual({ id: tag.id, name: 'new', version: 2 });
    expect(await storyTags(projectId, story.id)).toEqual(['new']);
    const clash = await grpcError(
      call('UpdateTag', { project_id: projectId, tag: 'new', update_mask: ['name'], name: 'TAKEN' }),
    );
    expect(clash.code).toBe(grpc.status.ABORTED);
    const recased = await call<boards.UpdateTagResponse__Output>('UpdateTag', {
      project_id: projectId,
      tag: String(tag.id),
      update_mask: ['name'],
      name: 'NEW',
    });
    expect(recased.tag?.name).toBe('NEW');
    const unchanged = await call<boards.UpdateTagResponse__Output>('UpdateTag', {
      project_id: projectId,
      tag: 'new',
      update_mask: [],
      name: '',
    });
    expect(unchanged.tag?.name).toBe('NEW');
  });

  it('tags on story create: ids, names and numeric strings; unknown names are created', async () => {
    const projectId = await board();
    const known = await createTag(projectId, 'known');
    const story = await createStory({
      project_id: projectId,
      tags: [
        { id: known.id, name: '' },
        { id: 0, name: 'Fresh' },
        { id: 0, name: 'fresh' }, // the same name again: one tag
        { id: 999_999_999_999, name: '999999999999' }, // no tag has that id: a name
      ],
    });
    // By id: new names are created in name order (a stable lock order), after the known tag.
    expect(await storyTags(projectId, story.id)).toEqual(['known', '999999999999', 'Fresh']);
    expect((await listTags(projectId)).total_items).toBe(3);
  });

  it('an unknown tag id fails the create and leaves nothing behind (one transaction)', async () => {
    const projectId = await board();
    const err = await grpcError(
      createStory({
        project_id: projectId,
        tags: [
          { id: 0, name: 'would be created' },
          { id: 999_999_999_998, name: '' },
        ],
      }),
    );
    expect(err.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(reason(err)).toBe('invalid-reference');
    expect((await listTags(projectId)).total_items).toBe(0);
    expect((await listStories({ project_id: projectId })).total_items).toBe(0);
  });

  it('concurrent creates naming the same new tag make exactly one tag', async () => {
    const projectId = await board();
    const stories = await Promise.all(
      Array.from({ length: 6 }, () =>
        createStory({ project_id: projectId, tags: [{ id: 0, name: 'Race' }] }),
      ),
    );
    const { tags } = await listTags(projectId);
    expect(tags.map((t) => t.name)).toEqual(['Race']);
    for (const s of stories) expect(await storyTags(projectId, s.id)).toEqual(['Race']);
  });

  it('story-scoped: add (creating by name), replace, remove; pages by id', async () => {
    const projectId = await board();
    const story = await createStory({ project_id: projectId });
    const key = { project_id: projectId, story_id: story.id, page: 1, page_size: 100 };
    const added = await call<boards.StoryTagsResponse__Output>('AddStoryTag', {
      ...key,
      tag: { id: 0, name: 'alpha' },
    });
    expect(added.tags.map((t) => t.name)).toEqual(['alpha']);
    const again = await call<boards.StoryTagsResponse__Output>('AddStoryTag', {
      ...key,
      tag: { id: 0, name: 'ALPHA' },
    });
    expect(again.total_items).toBe(1);
    const beta = await createTag(projectId, 'beta');
    const replaced = await call<boards.StoryTagsResponse__Output>('SetStoryTags', {
      ...key,
      tags: [
        { id: beta.id, name: '' },
        { id: 0, name: 'gamma' },
      ],
    });
    expect(replaced.tags.map((t) => t.name)).toEqual(['beta', 'gamma']);
    expect(replaced.total_items).toBe(2);
    const paged = await call<boards.StoryTagsResponse__Output>('ListStoryTags', {
      ...key,
      page: 2,
      page_size: 1,
    });
    expect(paged.tags.map((t) => t.name)).toEqual(['gamma']);

    const badId = await grpcError(
      call('SetStoryTags', { ...key, tags: [{ id: 999_999_999_997, name: '' }] }),
    );
    expect(reason(badId)).toBe('invalid-reference');
    expect(await storyTags(projectId, story.id)).toEqual(['beta', 'gamma']);

    await call('RemoveStoryTag', { project_id: projectId, story_id: story.id, tag: 'BETA' });
    expect(await storyTags(projectId, story.id)).toEqual(['gamma']);
    const notOn = await grpcError(
      call('RemoveStoryTag', { project_id: projectId, story_id: story.id, tag: 'beta' }),
    );
    expect(notOn.code).toBe(grpc.status.NOT_FOUND);
    const noStory = await grpcError(call('ListStoryTags', { ...key, story_id: 999_999 }));
    expect(noStory.code).toBe(grpc.status.NOT_FOUND);
    const cleared = await call<boards.StoryTagsResponse__Output>('SetStoryTags', { ...key, tags: [] });
    expect(cleared.total_items).toBe(0);
  });

  it('tag-scoped: add one story, replace the set (all or nothing), remove, list in board order with where', async () => {
    const projectId = await board();
    const tag = await createTag(projectId, 'focus');
    const a = await createStory({ project_id: projectId, text: 'apple' });
    const b = await createStory({ project_id: projectId, text: 'banana' });
    const c = await createStory({ project_id: projectId, text: 'cherry' });
    const base = { project_id: projectId, tag: 'focus', page: 1, page_size: 100 };

    const one = await call<boards.TagStoriesResponse__Output>('AddTagStory', { ...base, story_id: b.id });
    expect(ids(one.stories)).toEqual([b.id]);
    const unknown = await grpcError(call('AddTagStory', { ...base, story_id: 99_999 }));
    expect(reason(unknown)).toBe('invalid-reference');

    const set = await call<boards.TagStoriesResponse__Output>('SetTagStories', {
      ...base,
      tag: String(tag.id),
      story_ids: [c.id, a.id, c.id],
    });
    expect(ids(set.stories)).toEqual([a.id, c.id]); // board order
    expect(set.total_items).toBe(2);
    const partial = await grpcError(call('SetTagStories', { ...base, story_ids: [b.id, 99_999] }));
    expect(reason(partial)).toBe('invalid-reference');
    expect(ids((await tagStories(projectId, 'focus')).stories)).toEqual([a.id, c.id]);

    expect(ids((await tagStories(projectId, 'focus', 'text:cher')).stories)).toEqual([c.id]);
    const badWhere = await grpcError(tagStories(projectId, 'focus', 'colour:red'));
    expect(reason(badWhere)).toBe('invalid-filter');

    await call('RemoveTagStory', { project_id: projectId, tag: 'focus', story_id: a.id });
    expect(ids((await tagStories(projectId, 'focus')).stories)).toEqual([c.id]);
    const again = await grpcError(
      call('RemoveTagStory', { project_id: projectId, tag: 'focus', story_id: a.id }),
    );
    expect(again.code).toBe(grpc.status.NOT_FOUND);
    expect((await grpcError(tagStories(projectId, 'missing'))).code).toBe(grpc.status.NOT_FOUND);
  });

  it('where=tag: matches by name (ignoring case) or id, with not() and unknown values', async () => {
    const projectId = await board();
    const red = await createTag(projectId, 'Hot Stuff');
    const tagged = await createStory({ project_id: projectId, tags: [{ id: red.id, name: '' }] });
    const plain = await createStory({ project_id: projectId });
    const match = async (where: string) => ids((await listStories({ project_id: projectId, where })).stories);
    expect(await match('tag:"hot stuff"')).toEqual([tagged.id]);
    expect(await match(`tag:${red.id}`)).toEqual([tagged.id]);
    expect(await match('not(tag:"HOT STUFF")')).toEqual([plain.id]);
    expect(await match('tag:nothing')).toEqual([]);
    expect(await match('not(tag:nothing)')).toEqual([tagged.id, plain.id]);
  });

  it('batch reads: every requested story or tag present, tags by id, stories in board order', async () => {
    const projectId = await board();
    const x = await createTag(projectId, 'x');
    const y = await createTag(projectId, 'y');
    const s1 = await createStory({
      project_id: projectId,
      text: 'one',
      tags: [
        { id: y.id, name: '' },
        { id: x.id, name: '' },
      ],
    });
    const s2 = await createStory({ project_id: projectId, text: 'two', tags: [{ id: x.id, name: '' }] });
    const s3 = await createStory({ project_id: projectId, text: 'three' });
    const byStory = await call<boards.BatchGetStoryTagsResponse__Output>('BatchGetStoryTags', {
      project_id: projectId,
      story_ids: [s1.id, s2.id, s3.id],
    });
    expect(byStory.stories.map((s) => [s.story_id, s.tags.map((t) => t.name)])).toEqual([
      [s1.id, ['x', 'y']],
      [s2.id, ['x']],
      [s3.id, []],
    ]);
    const byTag = await call<boards.BatchGetTagStoriesResponse__Output>('BatchGetTagStories', {
      project_id: projectId,
      tag_ids: [x.id, y.id, 999_999_999_996],
    });
    expect(byTag.tags).toEqual([
      {
        tag_id: x.id,
        stories: [
          { id: s1.id, text: 'one' },
          { id: s2.id, text: 'two' },
        ],
      },
      { tag_id: y.id, stories: [{ id: s1.id, text: 'one' }] },
      { tag_id: 999_999_999_996, stories: [] },
    ]);
  });

  it('deleting a tag removes its links; deleting a story removes its links', async () => {
    const projectId = await board();
    const doomed = await createTag(projectId, 'doomed');
    const kept = await createTag(projectId, 'kept');
    const story = await createStory({
      project_id: projectId,
      tags: [
        { id: doomed.id, name: '' },
        { id: kept.id, name: '' },
      ],
    });
    expect(await linkCount(projectId)).toBe(2);
    await call('DeleteTag', { project_id: projectId, tag: 'DOOMED' });
    expect((await grpcError(getTag(projectId, String(doomed.id)))).code).toBe(grpc.status.NOT_FOUND);
    expect(await storyTags(projectId, story.id)).toEqual(['kept']);
    expect(await linkCount(projectId)).toBe(1);
    expect((await grpcError(call('DeleteTag', { project_id: projectId, tag: 'doomed' }))).code).toBe(
      grpc.status.NOT_FOUND,
    );
    await call('DeleteStory', { project_id: projectId, story_id: story.id });
    expect(await linkCount(projectId)).toBe(0);
    expect((await tagStories(projectId, 'kept')).total_items).toBe(0);
  });
});
