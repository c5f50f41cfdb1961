import * as grpc from '@grpc/grpc-js';
import type { boards } from '@flowboard/proto';
import { storyRepository } from '../../src/stories/db/story-repository';
import { admin, call, createBoard, createStory, newProjectId, reason, useBoardsService } from './harness';

useBoardsService();

/**
 * Story ids of any size the API accepts (the gateway takes up to 15 digits, all below 2^53; gRPC carries int64).
 * They were int4 in PostgreSQL, so an id above 2^31 − 1 failed there (22003, "out of range for type integer")
 * and came back INTERNAL. Migration 0008 made them bigint: now such an id behaves like any unknown one.
 */

/** An id no story of a test board has: what every id below is compared with. */
const UNKNOWN = 777_777;
/** The first id past int4, one the schema fuzzer sent, and the largest 15-digit id. */
const HUGE = [2_147_483_648, 442_332_585_584_321, 999_999_999_999_999];

type Call = (storyId: number) => Promise<unknown>;

/**
 * What a call came to (its answer, or its status, problem and message) as JSON, with the story id written as -1
 * (still a number, so the JSON stays readable).
 */
async function outcome(storyId: number, run: Call): Promise<string> {
  const asId = (text: string) => text.replace(new RegExp(`\\b${storyId}\\b`, 'g'), '-1');
  try {
    return asId(JSON.stringify({ ok: await run(storyId) }));
  } catch (e) {
    const err = e as grpc.ServiceError;
    return asId(JSON.stringify({ code: grpc.status[err.code], reason: reason(err), message: err.details }));
  }
}

/** Runs the call with UNKNOWN, then with each huge id; expects the same outcome each time and returns it. */
async function sameAsUnknown(run: Call): Promise<Record<string, unknown>> {
  const unknown = await outcome(UNKNOWN, run);
  const huge: string[] = [];
  for (const id of HUGE) huge.push(await outcome(id, run));
  expect(huge).toEqual(HUGE.map(() => unknown));
  return JSON.parse(unknown) as Record<string, unknown>;
}

/** A board with story 1 carrying a task, a comment and the tag `urgent`; the calls below work on it. */
const board = { projectId: 0, backlogId: 0, storyId: 0, taskId: 0, commentId: 0 };
const page = { page: 1, page_size: 10 };

beforeAll(async () => {
  board.projectId = newProjectId();
  const phases = await createBoard(board.projectId);
  board.backlogId = phases[0]!.id;
  const story = await createStory({ project_id: board.projectId, tags: [{ id: 0, name: 'urgent' }] });
  board.storyId = story.id;
  const key = { project_id: board.projectId, story_id: story.id };
  board.taskId = (
    await call<boards.CreateTaskResponse__Output>('CreateTask', { ...key, text: 't' })
  ).task!.id;
  board.commentId = (
    await call<boards.CreateCommentResponse__Output>('CreateComment', { ...key, text: 'c' })
  ).comment!.id;
});

const key = (storyId: number) => ({ project_id: board.projectId, story_id: storyId });

/** Every RPC with a story in its path (`S/...` in the HTTP API). */
const inPath: Record<string, Call> = {
  GetStory: (id) => call('GetStory', key(id)),
  UpdateStory: (id) => call('UpdateStory', { ...key(id), update_mask: ['text'], text: 'x' }),
  DeleteStory: (id) => call('DeleteStory', key(id)),
  ListTasks: (id) => call('ListTasks', { ...key(id), ...page }),
  GetTask: (id) => call('GetTask', { ...key(id), task_id: board.taskId }),
  CreateTask: (id) => call('CreateTask', { ...key(id), text: 'x' }),
  UpdateTask: (id) =>
    call('UpdateTask', { ...key(id), task_id: board.taskId, update_mask: ['text'], text: 'x' }),
  DeleteTask: (id) => call('DeleteTask', { ...key(id), task_id: board.taskId }),
  ReorderTasks: (id) => call('ReorderTasks', { ...key(id), task_ids: [board.taskId], ...page }),
  ListComments: (id) => call('ListComments', { ...key(id), ...page }),
  GetComment: (id) => call('GetComment', { ...key(id), comment_id: board.commentId }),
  CreateComment: (id) => call('CreateComment', { ...key(id), text: 'x' }),
  UpdateComment: (id) =>
    call('UpdateComment', { ...key(id), comment_id: board.commentId, update_mask: ['text'], text: 'x' }),
  DeleteComment: (id) => call('DeleteComment', { ...key(id), comment_id: board.commentId, is_admin: true }),
  ListStoryTags: (id) => call('ListStoryTags', { ...key(id), ...page }),
  AddStoryTag: (id) => call('AddStoryTag', { ...key(id), tag: { id: 0, name: 'urgent' }, ...page }),
  SetStoryTags: (id) => call('SetStoryTags', { ...key(id), tags: [{ id: 0, name: 'urgent' }], ...page }),
  RemoveStoryTag: (id) => call('RemoveStoryTag', { ...key(id), tag: 'urgent' }),
  RemoveTagStory: (id) => call('RemoveTagStory', { ...key(id), tag: 'urgent' }),
};

/** Story filters (`where=id:...`) of every RPC that takes one. */
const inFilter: Record<string, Call> = {
  ListStories: (id) => call('ListStories', { project_id: board.projectId, where: `id:${id}`, ...page }),
  ListPhaseStories: (id) =>
    call('ListPhaseStories', {
      project_id: board.projectId,
      phase_id: board.backlogId,
      where: `id:${id}`,
      ...page,
    }),
  ListTagStories: (id) =>
    call('ListTagStories', { project_id: board.projectId, tag: 'urgent', where: `id:${id}`, ...page }),
  UpdateStories: (id) =>
    call('UpdateStories', {
      project_id: board.projectId,
      where: `id:${id}`,
      update_mask: ['text'],
      text: 'x',
      ...page,
    }),
  ListOwnedStories: (id) =>
    call('ListOwnedStories', { owner_id: 42, project_ids: [board.projectId], where: `id:${id}`, ...page }),
};

describe('story ids above 2^31 − 1', () => {
  it.each(Object.entries(inPath))(
    '%s: NOT_FOUND for a story in the path, as for any unknown id',
    async (_, run) => {
      expect(await sameAsUnknown(run)).toMatchObject({ code: 'NOT_FOUND' });
    },
  );

  it.each(Object.entries(inFilter))(
    '%s: where=id:<id> matches nothing, as for any unknown id',
    async (_, run) => {
      expect(await sameAsUnknown(run)).toMatchObject({ ok: { stories: [] } });
    },
  );

  it('a story reference in a body: the same 400 as an unknown id (AddTagStory, SetTagStories, ReorderPhaseStories)', async () => {
    const tagStories = { project_id: board.projectId, tag: 'urgent', ...page };
    const invalidReference = { code: 'INVALID_ARGUMENT', reason: 'invalid-reference' };
    expect(await sameAsUnknown((id) => call('AddTagStory', { ...tagStories, story_id: id }))).toMatchObject(
      invalidReference,
    );
    expect(
      await sameAsUnknown((id) => call('SetTagStories', { ...tagStories, story_ids: [board.storyId, id] })),
    ).toMatchObject(invalidReference);
    expect(
      await sameAsUnknown((id) =>
        call('ReorderPhaseStories', {
          project_id: board.projectId,
          phase_id: board.backlogId,
          story_ids: [board.storyId, id],
        }),
      ),
    ).toMatchObject({ code: 'INVALID_ARGUMENT', reason: 'invalid-body' });
  });

  it('batch reads: an unknown id next to a real story answers as any unknown id does', async () => {
    const batch = (method: Parameters<typeof call>[0], extra: object = {}) =>
      sameAsUnknown((id) =>
        call(method, { project_id: board.projectId, story_ids: [board.storyId, id], ...extra }),
      );
    const stories = (await batch('BatchGetStories')) as { ok: boards.BatchGetStoriesResponse__Output };
    expect(stories.ok.stories.map((s) => s.id)).toEqual([board.storyId]);
    for (const method of ['BatchGetStoryTasks', 'BatchGetStoryComments', 'BatchGetStoryTags'] as const)
      expect(await batch(method)).toHaveProperty('ok');
    // The unknown id alone: story 1's open durations run to the time of each call, so they could differ.
    const history = await sameAsUnknown((id) =>
      call('BatchGetStoryHistory', {
        project_id: board.projectId,
        story_ids: [id],
        milestones: true,
        steps: true,
        metrics: true,
      }),
    );
    expect(history).toHaveProperty('ok');
  });

  it('every story id column is bigint, and the repositories still hand ids over as numbers', async () => {
    const narrow = await admin.query(
      `SELECT table_name, column_name, data_type FROM information_schema.columns
       WHERE table_schema = 'boards' AND (column_name = 'story_id' OR (table_name = 'stories' AND column_name = 'id'))
         AND data_type <> 'bigint'`,
    );
    expect(narrow.rows).toEqual([]);
    const story = await storyRepository(admin).find(board.projectId, board.storyId);
    expect(story).toMatchObject({ id: board.storyId, projectId: board.projectId });
    expect(typeof story!.id).toBe('number');
  });

  it('a story stored with a 15-digit id is served whole: children, tags and batch reads', async () => {
    // The API numbers stories from 1, so only the database can make one; it proves no int4 is left on the way.
    const id = HUGE[1]!;
    await admin.query(
      `INSERT INTO stories (project_id, id, text, status, phase_id, board_position, creator_id)
       VALUES ($1, $2, 'huge', 'planned', $3, 1000, 42)`,
      [board.projectId, id, board.backlogId],
    );
    const got = await call<boards.GetStoryResponse__Output>('GetStory', key(id));
    expect(got.story).toMatchObject({ id, text: 'huge' });
    await call('CreateTask', { ...key(id), text: 'task of a huge story' });
    await call('CreateComment', { ...key(id), text: 'comment on a huge story' });
    await call('SetStoryTags', { ...key(id), tags: [{ id: 0, name: 'urgent' }], ...page });
    const ids = { project_id: board.projectId, story_ids: [id] };
    const tasks = await call<boards.BatchGetStoryTasksResponse__Output>('BatchGetStoryTasks', ids);
    expect(tasks.stories.map((s) => [s.story_id, s.tasks.map((t) => t.text)])).toEqual([
      [id, ['task of a huge story']],
    ]);
    const tags = await call<boards.BatchGetStoryTagsResponse__Output>('BatchGetStoryTags', ids);
    expect(tags.stories.map((s) => [s.story_id, s.tags.map((t) => t.name)])).toEqual([[id, ['urgent']]]);
    const tagged = await call<boards.TagStoriesResponse__Output>('ListTagStories', {
      project_id: board.projectId,
      tag: 'urgent',
      ...page,
    });
    expect(tagged.stories.map((s) => s.id)).toEqual([board.storyId, id]);
    const listed = await call<boards.ListStoriesResponse__Output>('ListStories', {
      project_id: board.projectId,
      where: `id:${id}`,
      ...page,
    });
    expect(listed.stories.map((s) => s.id)).toEqual([id]);
    await call('DeleteStory', key(id));
    const left = await admin.query<{ n: number }>(
      `SELECT (SELECT count(*) FROM tasks WHERE project_id = $1 AND story_id = $2)
            + (SELECT count(*) FROM comments WHERE project_id = $1 AND story_id = $2)
            + (SELECT count(*) FROM story_tags WHERE project_id = $1 AND story_id = $2) AS n`,
      [board.projectId, id],
    );
    expect(left.rows[0]!.n).toBe(0);
  });
});
