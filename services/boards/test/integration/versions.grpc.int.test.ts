import * as grpc from '@grpc/grpc-js';
import { storyDeletedV1 } from '@flowboard/events';
import type { boards } from '@flowboard/proto';
import { fromGrpcError } from '@flowboard/service-kit';
import {
  admin,
  call,
  createBoard,
  createStory,
  grpcError,
  listStories,
  newProjectId,
  useBoardsService,
} from './harness';

// Versions (migration 0009) and conditional writes (expected_version) of every boards resource.
useBoardsService();

const getStory = (project_id: number, story_id: number) =>
  call<boards.GetStoryResponse__Output>('GetStory', { project_id, story_id }).then((r) => r.story!);
const updateStory = (request: Partial<boards.UpdateStoryRequest>) =>
  call<boards.UpdateStoryResponse__Output>('UpdateStory', request).then((r) => r.story!);
const getPhase = (project_id: number, phase_id: number) =>
  call<boards.GetPhaseResponse__Output>('GetPhase', { project_id, phase_id }).then((r) => r.phase!);
const listPhases = (project_id: number) =>
  call<boards.ListPhasesResponse__Output>('ListPhases', { project_id }).then((r) => r.phases);
const updatePhase = (request: Partial<boards.UpdatePhaseRequest>) =>
  call<boards.UpdatePhaseResponse__Output>('UpdatePhase', request).then((r) => r.phase!);
const createTask = (request: Partial<boards.CreateTaskRequest>) =>
  call<boards.CreateTaskResponse__Output>('CreateTask', request).then((r) => r.task!);
const getTask = (request: Partial<boards.GetTaskRequest>) =>
  call<boards.GetTaskResponse__Output>('GetTask', request).then((r) => r.task!);
const updateTask = (request: Partial<boards.UpdateTaskRequest>) =>
  call<boards.UpdateTaskResponse__Output>('UpdateTask', request).then((r) => r.task!);
const createComment = (request: Partial<boards.CreateCommentRequest>, userId = 42) =>
  call<boards.CreateCommentResponse__Output>('CreateComment', request, userId).then((r) => r.comment!);
const getComment = (request: Partial<boards.GetCommentRequest>) =>
  call<boards.GetCommentResponse__Output>('GetComment', request).then((r) => r.comment!);
const updateComment = (request: Partial<boards.UpdateCommentRequest>, userId = 42) =>
  call<boards.UpdateCommentResponse__Output>('UpdateComment', request, userId).then((r) => r.comment!);
const createTag = (project_id: number, name: string) =>
  call<boards.CreateTagResponse__Output>('CreateTag', { project_id, name }).then((r) => r.tag!);
const getTag = (project_id: number, tag: string) =>
  call<boards.GetTagResponse__Output>('GetTag', { project_id, tag }).then((r) => r.tag!);
const updateTag = (request: Partial<boards.UpdateTagRequest>) =>
  call<boards.UpdateTagResponse__Output>('UpdateTag', request).then((r) => r.tag!);

/** The error a call failed with, as the gateway's client sees it (a DomainError of some kind). */
const failure = async (promise: Promise<unknown>) => fromGrpcError(await grpcError(promise));

/** A call that must fail with PreconditionFailed; answers its message. */
async function preconditionFailed(promise: Promise<unknown>): Promise<string> {
  const error = await failure(promise);
  expect(error.kind).toBe('PreconditionFailed');
  return error.message;
}

async function board() {
  const projectId = newProjectId();
  const phases = await createBoard(projectId);
  return { projectId, phases };
}

/** History rows of a story: a write refused for its version must not have added or closed any. */
async function historyOf(projectId: number, storyId: number) {
  const { rows } = await admin.query<{ table: string; id: string; open: boolean }>(
    `SELECT 'milestone' AS table, id, end_time IS NULL AS open FROM story_milestones
      WHERE project_id = $1 AND story_id = $2
     UNION ALL
     SELECT 'step', id, end_time IS NULL FROM story_steps WHERE project_id = $1 AND story_id = $2
     ORDER BY 1, 2`,
    [projectId, storyId],
  );
  return rows;
}

/** The project's outbox rows: all of them, or those of one topic. */
const outboxRows = async (projectId: number, topic?: string) =>
  Number(
    (
      await admin.query<{ n: string }>(
        'SELECT count(*) AS n FROM outbox WHERE key = $1 AND ($2::text IS NULL OR topic = $2)',
        [String(projectId), topic ?? null],
      )
    ).rows[0]!.n,
  );

describe('story versions', () => {
  it('start at 1 and rise by exactly 1 per change; no-ops and reorders leave them; every read shows them', async () => {
    const { projectId, phases } = await board();
    const story = await createStory({ project_id: projectId, text: 'one', owner_id: 42 });
    const other = await createStory({ project_id: projectId, text: 'two' });
    expect([story.version, other.version]).toEqual([1, 1]);
    expect((await getStory(projectId, story.id)).version).toBe(1);

    const key = { project_id: projectId, story_id: story.id };
    expect((await updateStory({ ...key, update_mask: ['text'], text: 'uno' })).version).toBe(2);
    // The same values again: nothing the API shows changed (the row's updated_at did).
    expect(
      (await updateStory({ ...key, update_mask: ['text', 'color'], text: 'uno', color: 'grey' })).version,
    ).toBe(2);
    // A move changes the phase, the status and the board position at once: still one change.
    const moved = await updateStory({ ...key, update_mask: ['phase'], phase_id: phases[2]!.id });
    expect([moved.status, moved.version]).toEqual(['started', 3]);

    // Reordering the Backlog renumbers `other`'s board position only: not shown, no new version.
    await createStory({ project_id: projectId, text: 'three' });
    const backlog = await call<boards.ListPhaseStoriesResponse__Output>('ListPhaseStories', {
      project_id: projectId,
      phase_id: phases[0]!.id,
      page: 1,
      page_size: 10,
    });
    await call('ReorderPhaseStories', {
      project_id: projectId,
      phase_id: phases[0]!.id,
      story_ids: backlog.stories.map((s) => s.id).reverse(),
    });
    expect((await getStory(projectId, other.id)).version).toBe(1);

    // A bulk update changes each matching story once.
    const bulk = await call<boards.UpdateStoriesResponse__Output>('UpdateStories', {
      project_id: projectId,
      where: 'not(text:three)',
      update_mask: ['priority'],
      priority: 'high',
      page: 1,
      page_size: 10,
    });
    expect(bulk.stories.map((s) => [s.id, s.version])).toEqual([
      [other.id, 2],
      [story.id, 4],
    ]);

    const byId = (stories: boards.Story__Output[]) => new Map(stories.map((s) => [s.id, s.version]));
    expect(byId((await listStories({ project_id: projectId })).stories).get(story.id)).toBe(4);
    const batch = await call<boards.BatchGetStoriesResponse__Output>('BatchGetStories', {
      project_id: projectId,
      story_ids: [story.id, other.id],
    });
    expect(byId(batch.stories)).toEqual(
      new Map([
        [story.id, 4],
        [other.id, 2],
      ]),
    );
    const owned = await call<boards.ListOwnedStoriesResponse__Output>('ListOwnedStories', {
      owner_id: 42,
      project_ids: [projectId],
      all: true,
    });
    expect(byId(owned.stories).get(story.id)).toBe(4);
  });

  it('a conditional update needs the current version; a stale one writes nothing, history included', async () => {
    const { projectId, phases } = await board();
    const story = await createStory({ project_id: projectId, text: 'before' });
    const key = { project_id: projectId, story_id: story.id };

    const updated = await updateStory({ ...key, update_mask: ['text'], text: 'after', expected_version: 1 });
    expect(updated.version).toBe(2);
    const history = await historyOf(projectId, story.id);

    // Stale: a move would close and open a milestone and a step; none of it happens.
    const err = await grpcError(
      updateStory({
        ...key,
        update_mask: ['phase', 'text'],
        phase_id: phases[2]!.id,
        text: 'x',
        expected_version: 1,
      }),
    );
    expect(err.code).toBe(grpc.status.FAILED_PRECONDITION);
    expect(err.metadata.get('flowboard-error-reason')).toEqual(['VERSION_MISMATCH']);
    expect(err.metadata.get('flowboard-problem')).toEqual(['precondition-failed']);
    expect(err.details).toBe(`Story ${story.id} is at version 2, not 1.`);
    expect(await getStory(projectId, story.id)).toEqual(updated);
    expect(await historyOf(projectId, story.id)).toEqual(history);

    // A version from the future is just as stale.
    await preconditionFailed(updateStory({ ...key, update_mask: ['text'], text: 'x', expected_version: 3 }));
    // Unconditional (0) writes as before.
    expect(
      (await updateStory({ ...key, update_mask: ['text'], text: 'free', expected_version: 0 })).version,
    ).toBe(3);
  });

  it('checks the version before the rules of the update; a missing story is still NotFound', async () => {
    const { projectId, phases } = await board();
    const story = await createStory({ project_id: projectId });
    await updateStory({ project_id: projectId, story_id: story.id, update_mask: ['text'], text: 'v2' });
    const key = { project_id: projectId, story_id: story.id, expected_version: 1 };
    // In the Backlog, a status cannot be set (400 invalid-state), nor can a story move to an unknown phase.
    await preconditionFailed(updateStory({ ...key, update_mask: ['status'], status: 'ready' }));
    await preconditionFailed(updateStory({ ...key, update_mask: ['phase'], phase_id: phases[4]!.id + 1000 }));
    expect(
      (await failure(updateStory({ ...key, expected_version: 2, update_mask: ['status'], status: 'ready' })))
        .kind,
    ).toBe('InvalidArgument');

    const missing = { project_id: projectId, story_id: story.id + 100, expected_version: 1 };
    expect((await failure(updateStory({ ...missing, update_mask: ['text'], text: 'x' }))).kind).toBe(
      'NotFound',
    );
    expect((await failure(call('DeleteStory', missing))).kind).toBe('NotFound');
  });

  it('a conditional delete needs the current version; a stale one keeps the story and writes no event', async () => {
    const { projectId } = await board();
    const story = await createStory({ project_id: projectId });
    await call('CreateTask', { project_id: projectId, story_id: story.id, text: 'kept' });
    await updateStory({ project_id: projectId, story_id: story.id, update_mask: ['text'], text: 'v2' });
    const key = { project_id: projectId, story_id: story.id };
    // The create, the task and the update wrote their change events; the refused delete must add none.
    const written = await outboxRows(projectId);

    expect(await preconditionFailed(call('DeleteStory', { ...key, expected_version: 1 }))).toBe(
      `Story ${story.id} is at version 2, not 1.`,
    );
    expect((await getStory(projectId, story.id)).version).toBe(2);
    expect(await outboxRows(projectId)).toBe(written);
    expect(await outboxRows(projectId, storyDeletedV1.topic)).toBe(0);
    const tasks = await call<boards.ListTasksResponse__Output>('ListTasks', {
      ...key,
      page: 1,
      page_size: 10,
    });
    expect(tasks.total_items).toBe(1);

    await call('DeleteStory', { ...key, expected_version: 2 });
    expect((await failure(getStory(projectId, story.id))).kind).toBe('NotFound');
    expect(await outboxRows(projectId, storyDeletedV1.topic)).toBe(1);
    expect(await outboxRows(projectId)).toBe(written + 2); // boards.story-deleted.v1 and story.deleted

    const unconditional = await createStory({ project_id: projectId });
    await call('DeleteStory', { project_id: projectId, story_id: unconditional.id });
    expect(await outboxRows(projectId, storyDeletedV1.topic)).toBe(2);
  });

  it('of 10 concurrent updates at one version exactly one wins; the version rises by one', async () => {
    const { projectId } = await board();
    const story = await createStory({ project_id: projectId, text: 'start' });
    const key = { project_id: projectId, story_id: story.id };
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) =>
        updateStory({ ...key, update_mask: ['text'], text: `writer ${i}`, expected_version: 1 }),
      ),
    );
    const won = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    const lost = results.flatMap((r) => (r.status === 'rejected' ? [fromGrpcError(r.reason).kind] : []));
    expect(won).toHaveLength(1);
    expect(lost).toEqual(Array(9).fill('PreconditionFailed'));
    const final = await getStory(projectId, story.id);
    expect([final.version, final.text]).toEqual([2, won[0]!.text]);
  });
});

describe('phase versions', () => {
  it('rise with name, description, limit and index; story counts and no-ops leave them', async () => {
    const { projectId, phases } = await board();
    expect(phases.map((p) => p.version)).toEqual([1, 1, 1, 1, 1]);
    const working = phases[2]!;
    const key = { project_id: projectId, phase_id: working.id };

    expect((await updatePhase({ ...key, update_mask: ['name'], name: 'Doing' })).version).toBe(2);
    expect(
      (await updatePhase({ ...key, update_mask: ['name', 'limit'], name: 'Doing', limit: 0 })).version,
    ).toBe(2);
    expect((await updatePhase({ ...key, update_mask: ['limit'], limit: 3 })).version).toBe(3);

    // Stories entering and leaving the phase change its story_count only: not part of a phase.
    const story = await createStory({ project_id: projectId, phase_id: working.id });
    await updateStory({
      project_id: projectId,
      story_id: story.id,
      update_mask: ['phase'],
      phase_id: phases[1]!.id,
    });
    expect((await getPhase(projectId, working.id)).version).toBe(3);

    // A new phase at index 1 shifts every later phase: their index is shown, so their versions rise.
    await call('CreatePhase', { project_id: projectId, name: 'Next', has_index: true, index: 1 });
    const after = await listPhases(projectId);
    expect(after.map((p) => [p.name, p.version])).toEqual([
      ['Backlog', 1],
      ['Next', 1],
      ['Ready', 2],
      ['Doing', 4],
      ['Complete', 2],
      ['Archive', 2],
    ]);
    const batch = await call<boards.BatchListPhasesResponse__Output>('BatchListPhases', {
      project_ids: [projectId],
    });
    expect(batch.projects[0]!.phases.map((p) => p.version)).toEqual(after.map((p) => p.version));
  });

  it('a conditional update or delete needs the current version, before the phase rules; NotFound first', async () => {
    const { projectId, phases } = await board();
    const working = phases[2]!;
    await updatePhase({ project_id: projectId, phase_id: working.id, update_mask: ['name'], name: 'Doing' });
    const before = await listPhases(projectId);

    // Stale, with a move that would shift other phases: nothing moves.
    const key = { project_id: projectId, phase_id: working.id };
    expect(
      await preconditionFailed(
        updatePhase({ ...key, update_mask: ['name', 'index'], name: 'x', index: 1, expected_version: 1 }),
      ),
    ).toBe(`Phase ${working.id} is at version 2, not 1.`);
    // An index past Archive is refused by the phase rules, but only after the version.
    await preconditionFailed(updatePhase({ ...key, update_mask: ['index'], index: 99, expected_version: 1 }));
    expect(await listPhases(projectId)).toEqual(before);

    // Deleting: stale beats the 409 of a phase holding stories and the 400 of the Backlog.
    await createStory({ project_id: projectId, phase_id: working.id });
    await preconditionFailed(call('DeletePhase', { ...key, expected_version: 1 }));
    expect((await failure(call('DeletePhase', { ...key, expected_version: 2 }))).kind).toBe('Conflict');
    await preconditionFailed(
      call('DeletePhase', { project_id: projectId, phase_id: phases[0]!.id, expected_version: 2 }),
    );
    expect(await listPhases(projectId)).toEqual(before);

    const ready = phases[1]!;
    await preconditionFailed(
      call('DeletePhase', { project_id: projectId, phase_id: ready.id, expected_version: 2 }),
    );
    await call('DeletePhase', { project_id: projectId, phase_id: ready.id, expected_version: 1 });
    expect((await listPhases(projectId)).map((p) => p.name)).toEqual([
      'Backlog',
      'Doing',
      'Complete',
      'Archive',
    ]);

    const missing = { project_id: projectId, phase_id: ready.id, expected_version: 1 };
    expect((await failure(updatePhase({ ...missing, update_mask: ['name'], name: 'x' }))).kind).toBe(
      'NotFound',
    );
    expect((await failure(call('DeletePhase', missing))).kind).toBe('NotFound');
    // Unconditional writes are as before.
    expect((await updatePhase({ ...key, update_mask: ['description'], description: 'd' })).description).toBe(
      'd',
    );
  });
});

describe('task versions', () => {
  it('rise with text and status; reorders and no-ops leave them; lists and batches show them', async () => {
    const { projectId } = await board();
    const story = await createStory({ project_id: projectId });
    const key = { project_id: projectId, story_id: story.id };
    const a = await createTask({ ...key, text: 'a' });
    const b = await createTask({ ...key, text: 'b' });
    expect([a.version, b.version]).toEqual([1, 1]);

    expect((await updateTask({ ...key, task_id: a.id, update_mask: ['text'], text: 'A' })).version).toBe(2);
    expect((await updateTask({ ...key, task_id: a.id, update_mask: ['text'], text: 'A' })).version).toBe(2);
    expect(
      (await updateTask({ ...key, task_id: a.id, update_mask: ['status'], status: 'complete' })).version,
    ).toBe(3);
    await call('ReorderTasks', { ...key, task_ids: [b.id, a.id], page: 1, page_size: 10 });

    const listed = await call<boards.ListTasksResponse__Output>('ListTasks', {
      ...key,
      page: 1,
      page_size: 10,
    });
    expect(listed.tasks.map((t) => [t.id, t.version])).toEqual([
      [b.id, 1],
      [a.id, 3],
    ]);
    const batch = await call<boards.BatchGetStoryTasksResponse__Output>('BatchGetStoryTasks', {
      project_id: projectId,
      story_ids: [story.id],
    });
    expect(batch.stories[0]!.tasks.map((t) => t.version)).toEqual([1, 3]);
  });

  it('a conditional update or delete needs the current version; NotFound first', async () => {
    const { projectId } = await board();
    const story = await createStory({ project_id: projectId });
    const key = { project_id: projectId, story_id: story.id };
    const task = await createTask({ ...key, text: 'a' });
    const updated = await updateTask({
      ...key,
      task_id: task.id,
      update_mask: ['text'],
      text: 'b',
      expected_version: 1,
    });
    expect(updated.version).toBe(2);

    expect(
      await preconditionFailed(
        updateTask({
          ...key,
          task_id: task.id,
          update_mask: ['status'],
          status: 'complete',
          expected_version: 1,
        }),
      ),
    ).toBe(`Task ${task.id} is at version 2, not 1.`);
    await preconditionFailed(call('DeleteTask', { ...key, task_id: task.id, expected_version: 1 }));
    expect(await getTask({ ...key, task_id: task.id })).toEqual(updated);

    const missing = { ...key, task_id: task.id + 1000, expected_version: 1 };
    expect((await failure(updateTask({ ...missing, update_mask: ['text'], text: 'x' }))).kind).toBe(
      'NotFound',
    );
    expect((await failure(call('DeleteTask', missing))).kind).toBe('NotFound');
    const noStory = { ...key, story_id: story.id + 1000, task_id: task.id, expected_version: 1 };
    expect((await failure(call('DeleteTask', noStory))).kind).toBe('NotFound');

    await call('DeleteTask', { ...key, task_id: task.id, expected_version: 2 });
    expect((await failure(getTask({ ...key, task_id: task.id }))).kind).toBe('NotFound');
    const other = await createTask({ ...key, text: 'c' });
    await call('DeleteTask', { ...key, task_id: other.id });
    expect((await failure(getTask({ ...key, task_id: other.id }))).kind).toBe('NotFound');
  });
});

describe('comment versions', () => {
  it('rise with the text; a conditional update or delete needs the current version, after the author check', async () => {
    const { projectId } = await board();
    const story = await createStory({ project_id: projectId });
    const key = { project_id: projectId, story_id: story.id };
    const comment = await createComment({ ...key, text: 'first' });
    expect(comment.version).toBe(1);
    const ref = { ...key, comment_id: comment.id };

    const edited = await updateComment({
      ...ref,
      update_mask: ['text'],
      text: 'second',
      expected_version: 1,
    });
    expect(edited.version).toBe(2);
    expect((await updateComment({ ...ref, update_mask: ['text'], text: 'second' })).version).toBe(2);
    expect(
      await preconditionFailed(
        updateComment({ ...ref, update_mask: ['text'], text: 'third', expected_version: 1 }),
      ),
    ).toBe(`Comment ${comment.id} is at version 2, not 1.`);
    // Without a text nothing would change, yet the condition is still checked.
    await preconditionFailed(updateComment({ ...ref, update_mask: [], expected_version: 1 }));
    // Someone else than the author is refused for that (403) whatever the version.
    expect(
      (await failure(updateComment({ ...ref, update_mask: ['text'], text: 'x', expected_version: 1 }, 7)))
        .kind,
    ).toBe('PermissionDenied');
    await preconditionFailed(call('DeleteComment', { ...ref, expected_version: 1 }));
    expect(await getComment(ref)).toEqual(edited);

    const listed = await call<boards.ListCommentsResponse__Output>('ListComments', {
      ...key,
      page: 1,
      page_size: 10,
    });
    const batch = await call<boards.BatchGetStoryCommentsResponse__Output>('BatchGetStoryComments', {
      project_id: projectId,
      story_ids: [story.id],
    });
    expect([listed.comments[0]!.version, batch.stories[0]!.comments[0]!.version]).toEqual([2, 2]);

    const missing = { ...key, comment_id: comment.id + 1000, expected_version: 1 };
    expect((await failure(updateComment({ ...missing, update_mask: ['text'], text: 'x' }))).kind).toBe(
      'NotFound',
    );
    expect((await failure(call('DeleteComment', missing))).kind).toBe('NotFound');

    // An admin deletes someone's comment at its current version; an unconditional delete still works.
    await call('DeleteComment', { ...ref, is_admin: true, expected_version: 2 }, 7);
    expect((await failure(getComment(ref))).kind).toBe('NotFound');
    const other = await createComment({ ...key, text: 'other' });
    await call('DeleteComment', { ...key, comment_id: other.id });
    expect((await failure(getComment({ ...key, comment_id: other.id }))).kind).toBe('NotFound');
  });
});

describe('tag versions', () => {
  it('rise with each rename; links leave them; every read shows them', async () => {
    const { projectId } = await board();
    const tag = await createTag(projectId, 'old');
    expect(tag.version).toBe(1);
    const story = await createStory({ project_id: projectId, tags: [{ id: tag.id, name: '' }] });
    await call('AddTagStory', {
      project_id: projectId,
      tag: 'old',
      story_id: story.id,
      page: 1,
      page_size: 10,
    });
    expect((await getTag(projectId, 'old')).version).toBe(1);

    expect(
      (await updateTag({ project_id: projectId, tag: 'old', update_mask: ['name'], name: 'new' })).version,
    ).toBe(2);
    expect(
      (await updateTag({ project_id: projectId, tag: 'new', update_mask: ['name'], name: 'new' })).version,
    ).toBe(2);
    expect(
      (await updateTag({ project_id: projectId, tag: 'new', update_mask: ['name'], name: 'NEW' })).version,
    ).toBe(3);

    const tags = await call<boards.ListTagsResponse__Output>('ListTags', {
      project_id: projectId,
      page: 1,
      page_size: 10,
    });
    const ofStory = await call<boards.StoryTagsResponse__Output>('ListStoryTags', {
      project_id: projectId,
      story_id: story.id,
      page: 1,
      page_size: 10,
    });
    const batch = await call<boards.BatchGetStoryTagsResponse__Output>('BatchGetStoryTags', {
      project_id: projectId,
      story_ids: [story.id],
    });
    const page = await listStories({ project_id: projectId, include_tags: true });
    expect([
      tags.tags[0]!.version,
      ofStory.tags[0]!.version,
      batch.stories[0]!.tags[0]!.version,
      page.story_tags[0]!.tags[0]!.version,
    ]).toEqual([3, 3, 3, 3]);
  });

  it('a conditional rename or delete needs the current version, before the name clash; NotFound first', async () => {
    const { projectId } = await board();
    const tag = await createTag(projectId, 'old');
    await createTag(projectId, 'taken');
    const story = await createStory({ project_id: projectId, tags: [{ id: tag.id, name: '' }] });
    const renamed = await updateTag({
      project_id: projectId,
      tag: String(tag.id),
      update_mask: ['name'],
      name: 'new',
      expected_version: 1,
    });
    expect(renamed.version).toBe(2);

    const stale = { project_id: projectId, tag: 'new', expected_version: 1 };
    expect(await preconditionFailed(updateTag({ ...stale, update_mask: ['name'], name: 'other' }))).toBe(
      `Tag ${tag.id} is at version 2, not 1.`,
    );
    await preconditionFailed(updateTag({ ...stale, update_mask: ['name'], name: 'taken' }));
    expect(
      (await failure(updateTag({ ...stale, expected_version: 2, update_mask: ['name'], name: 'taken' })))
        .kind,
    ).toBe('Conflict');
    await preconditionFailed(call('DeleteTag', stale));
    expect(await getTag(projectId, 'new')).toEqual(renamed);
    const ofStory = await call<boards.StoryTagsResponse__Output>('ListStoryTags', {
      project_id: projectId,
      story_id: story.id,
      page: 1,
      page_size: 10,
    });
    expect(ofStory.tags.map((t) => t.name)).toEqual(['new']);

    const missing = { project_id: projectId, tag: 'nothing', expected_version: 1 };
    expect((await failure(updateTag({ ...missing, update_mask: ['name'], name: 'x' }))).kind).toBe(
      'NotFound',
    );
    expect((await failure(call('DeleteTag', missing))).kind).toBe('NotFound');

    await call('DeleteTag', { project_id: projectId, tag: 'new', expected_version: 2 });
    expect((await failure(getTag(projectId, 'new'))).kind).toBe('NotFound');
    await call('DeleteTag', { project_id: projectId, tag: 'taken' });
    expect((await failure(getTag(projectId, 'taken'))).kind).toBe('NotFound');
  });
});
