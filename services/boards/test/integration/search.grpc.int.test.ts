import * as grpc from '@grpc/grpc-js';
import type { boards } from '@flowboard/proto';
import {
  admin,
  call,
  createBoard,
  createStory,
  grpcError,
  newProjectId,
  reason,
  useBoardsService,
} from './harness';

useBoardsService();

const search = (req: Partial<boards.SearchStoriesRequest>) =>
  call<boards.SearchStoriesResponse__Output>('SearchStories', { page: 1, page_size: 20, where: '', ...req });

async function board() {
  const projectId = newProjectId();
  await createBoard(projectId);
  return projectId;
}

/** The highlighted words of a match, as the client would cut them out of the snippet (code points). */
const highlighted = (match: boards.SearchMatch__Output | undefined) =>
  (match?.highlights ?? []).map((h) =>
    [...(match?.snippet ?? '')].slice(h.start, h.start + h.length).join(''),
  );

describe('SearchStories over PostgreSQL full-text search', () => {
  it('finds words in every source, says where each story matched, ranks titles first', async () => {
    const project = await board();
    const inTitle = await createStory({ project_id: project, text: 'Checkout crashes on submit' });
    const inDetails = await createStory({
      project_id: project,
      text: 'Payment page',
      details: 'Long details about the flow.\n\nThe checkout button is grey when it should be green.',
    });
    const inTask = await createStory({
      project_id: project,
      text: 'Release',
      tasks: [{ text: 'check the checkout', status: '' }],
    });
    const inTag = await createStory({
      project_id: project,
      text: 'Cart',
      tags: [{ id: 0, name: 'checkout' }],
    });
    const inComment = await createStory({ project_id: project, text: 'Billing' });
    const comment = await call<boards.CreateCommentResponse__Output>('CreateComment', {
      project_id: project,
      story_id: inComment.id,
      text: 'Seen again while checking out: the checkout spinner never stops.',
    });
    await createStory({ project_id: project, text: 'Unrelated card' });

    const found = await search({ project_ids: [project], query: 'checkout' });
    expect(found.total_items).toBe(5);
    expect(found.more_matches).toBe(false);
    expect(found.match_limit).toBe(1000);
    expect(found.stories[0]?.id).toBe(inTitle.id);
    const byStory = new Map(found.stories.map((s, i) => [s.id, found.matches[i]]));
    expect(byStory.get(inTitle.id)).toMatchObject({
      field: 'text',
      item_id: 0,
      snippet: 'Checkout crashes on submit',
    });
    expect(highlighted(byStory.get(inTitle.id))).toEqual(['Checkout']);
    expect(byStory.get(inDetails.id)?.field).toBe('details');
    expect(highlighted(byStory.get(inDetails.id))).toEqual(['checkout']);
    expect(byStory.get(inTask.id)).toMatchObject({ field: 'task', snippet: 'check the checkout' });
    expect(byStory.get(inTask.id)?.item_id).toBeGreaterThan(0);
    const tag = byStory.get(inTag.id);
    expect(tag).toMatchObject({ field: 'tag', snippet: 'checkout' });
    expect(byStory.get(inComment.id)).toMatchObject({ field: 'comment', item_id: comment.comment!.id });
    expect(highlighted(byStory.get(inComment.id))).toEqual(['checkout']);
    // A title outranks a comment.
    const rank = (id: number) => found.stories.findIndex((s) => s.id === id);
    expect(rank(inTitle.id)).toBeLessThan(rank(inComment.id));
  });

  it('stems, and takes phrases, prefixes, exclusions and OR', async () => {
    const project = await board();
    const a = await createStory({ project_id: project, text: 'Users cannot log in after reset' });
    const b = await createStory({ project_id: project, text: 'Logging in is slow for users' });
    const c = await createStory({ project_id: project, text: 'Password reset e-mail is late' });
    const ids = async (query: string) =>
      (await search({ project_ids: [project], query })).stories.map((s) => s.id).sort((x, y) => x - y);

    expect(await ids('user')).toEqual([a.id, b.id]); // stemmed: users → user
    expect(await ids('"password reset"')).toEqual([c.id]); // the phrase: its words in order, adjacent
    expect(await ids('"reset password"')).toEqual([]);
    expect(await ids('"log in"')).toEqual([a.id, b.id]); // stemmed in a phrase too: logging → log
    expect(await ids('pass*')).toEqual([c.id]);
    expect(await ids('reset -password')).toEqual([a.id]);
    expect(await ids('slow OR late')).toEqual([b.id, c.id]);
    expect(await ids('users slow OR late')).toEqual([b.id]);
    expect(await ids('USERS')).toEqual([a.id, b.id]);
    expect(await ids('nothing-like-this')).toEqual([]);
  });

  it('sees every write as soon as it returns: edits, tags, tasks, comments, renames and deletions', async () => {
    const project = await board();
    const story = await createStory({ project_id: project, text: 'Plain title' });
    const key = { project_id: project, story_id: story.id };
    const hits = async (query: string) => (await search({ project_ids: [project], query })).total_items;

    await call('UpdateStory', { ...key, update_mask: ['details'], details: 'mentions zeppelin' });
    expect(await hits('zeppelin')).toBe(1);
    await call('UpdateStory', { ...key, update_mask: ['details'], details: 'nothing now' });
    expect(await hits('zeppelin')).toBe(0);

    const task = await call<boards.CreateTaskResponse__Output>('CreateTask', {
      ...key,
      text: 'calibrate the gyroscope',
    });
    expect(await hits('gyroscope')).toBe(1);
    await call('DeleteTask', { ...key, task_id: task.task!.id });
    expect(await hits('gyroscope')).toBe(0);

    const comment = await call<boards.CreateCommentResponse__Output>('CreateComment', {
      ...key,
      text: 'a walrus',
    });
    expect(await hits('walrus')).toBe(1);
    await call('UpdateComment', {
      ...key,
      comment_id: comment.comment!.id,
      update_mask: ['text'],
      text: 'a narwhal',
    });
    expect(await hits('walrus')).toBe(0);
    expect(await hits('narwhal')).toBe(1);

    const quasar = (
      await call<boards.CreateTagResponse__Output>('CreateTag', { project_id: project, name: 'quasar' })
    ).tag!;
    expect(await hits('quasar')).toBe(0);
    await call('AddStoryTag', { ...key, tag: { id: quasar.id, name: '' }, page: 1, page_size: 10 });
    expect(await hits('quasar')).toBe(1);
    await call('UpdateTag', {
      project_id: project,
      tag: String(quasar.id),
      update_mask: ['name'],
      name: 'pulsar',
    });
    expect(await hits('quasar')).toBe(0);
    expect(await hits('pulsar')).toBe(1);
    await call('DeleteTag', { project_id: project, tag: String(quasar.id) });
    expect(await hits('pulsar')).toBe(0);

    // A move or a color changes nothing searchable, and rewrites no search row.
    const { phases } = await call<boards.ListPhasesResponse__Output>('ListPhases', { project_id: project });
    const before = await admin.query(
      'SELECT xmin FROM story_search WHERE project_id = $1 AND story_id = $2',
      [project, story.id],
    );
    await call('UpdateStory', {
      ...key,
      update_mask: ['phase', 'color'],
      phase_id: phases[1]!.id,
      color: 'red',
    });
    const after = await admin.query('SELECT xmin FROM story_search WHERE project_id = $1 AND story_id = $2', [
      project,
      story.id,
    ]);
    expect(after.rows[0].xmin).toBe(before.rows[0].xmin);

    await call('DeleteStory', key);
    expect(await hits('narwhal')).toBe(0);
    const rows = await admin.query('SELECT count(*)::int AS n FROM story_search WHERE project_id = $1', [
      project,
    ]);
    expect(rows.rows[0].n).toBe(0);
  });

  it('stays within the projects given, combines with where=, and pages', async () => {
    const mine = await board();
    const other = await board();
    const red: number[] = [];
    for (let i = 0; i < 5; i += 1)
      red.push(
        (await createStory({ project_id: mine, text: `Invoice ${i}`, color: i % 2 ? 'red' : 'blue' })).id,
      );
    await createStory({ project_id: other, text: 'Invoice elsewhere' });

    const all = await search({ project_ids: [mine], query: 'invoice' });
    expect(all.total_items).toBe(5);
    expect(all.stories.every((s) => s.project_id === mine)).toBe(true);
    const both = await search({ project_ids: [mine, other], query: 'invoice' });
    expect(both.total_items).toBe(6);

    const filtered = await search({ project_ids: [mine], query: 'invoice', where: 'color:red' });
    expect(filtered.stories.map((s) => s.color)).toEqual(['red', 'red']);
    expect(filtered.total_items).toBe(2);

    const pages = [];
    for (let page = 1; page <= 3; page += 1)
      pages.push(
        ...(await search({ project_ids: [mine], query: 'invoice', page, page_size: 2 })).stories.map(
          (s) => s.id,
        ),
      );
    expect(pages.sort((x, y) => x - y)).toEqual(red);
  });

  it('ranks at most match_limit matches and says when more matched', async () => {
    const project = await board();
    // 1,001 stories with the word, written as one statement (the trigger indexes a bulk insert at once).
    await admin.query(
      `INSERT INTO stories (project_id, id, text, status, phase_id, board_position, creator_id)
       SELECT $1, 100 + n, 'Common word ' || n, 'planned', p.id, 100 + n, 1
       FROM generate_series(1, 1001) n, (SELECT id FROM phases WHERE project_id = $1 ORDER BY position LIMIT 1) p`,
      [project],
    );
    const found = await search({ project_ids: [project], query: 'common', page_size: 100 });
    expect(found.total_items).toBe(1000);
    expect(found.more_matches).toBe(true);
    expect(found.stories).toHaveLength(100);
  });

  it.each([
    ['', 'no word'],
    ['"unclosed', 'never closed'],
    ['-only', 'only excludes'],
    ['a*', '2 characters'],
    ['ab-c*', 'letters and digits'],
    ['OR word', "'OR' needs"],
    ['the', 'too common'],
    ['x'.repeat(257), 'longer than 256'],
    [Array.from({ length: 17 }, (_, i) => `w${i}`).join(' '), 'at most 16'],
  ])('refuses %j with INVALID_ARGUMENT saying why (%s)', async (query, why) => {
    const project = await board();
    const err = await grpcError(search({ project_ids: [project], query }));
    expect(err.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(reason(err)).toBe('invalid-parameter');
    expect(err.details).toContain(why);
  });

  it('refuses a page larger than 100', async () => {
    const err = await grpcError(search({ project_ids: [await board()], query: 'x', page_size: 101 }));
    expect(err.code).toBe(grpc.status.INVALID_ARGUMENT);
  });
});
