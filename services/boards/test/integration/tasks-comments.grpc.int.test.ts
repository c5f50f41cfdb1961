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

async function story(extra: Partial<boards.CreateStoryRequest> = {}) {
  const projectId = newProjectId();
  await createBoard(projectId);
  const created = await createStory({ project_id: projectId, ...extra });
  return { project_id: projectId, story_id: created.id };
}

const createTask = (req: Partial<boards.CreateTaskRequest>, userId = 42) =>
  call<boards.CreateTaskResponse__Output>('CreateTask', req, userId).then((r) => r.task!);
const updateTask = (req: Partial<boards.UpdateTaskRequest>, userId = 42) =>
  call<boards.UpdateTaskResponse__Output>('UpdateTask', req, userId).then((r) => r.task!);
const listTasks = (req: Partial<boards.ListTasksRequest>) =>
  call<boards.ListTasksResponse__Output>('ListTasks', { page: 1, page_size: 100, ...req });
const createComment = (req: Partial<boards.CreateCommentRequest>, userId = 42) =>
  call<boards.CreateCommentResponse__Output>('CreateComment', req, userId).then((r) => r.comment!);

describe('tasks over gRPC and PostgreSQL', () => {
  it('appends, completes (finisher = caller), reopens (cleared), renames, deletes', async () => {
    const key = await story();
    const a = await createTask({ ...key, text: 'first' });
    const b = await createTask({ ...key, text: 'second', status: 'complete' }, 7);
    expect(a).toMatchObject({ text: 'first', status: 'incomplete', finish_time: '', finished_by: 0 });
    expect(b).toMatchObject({ status: 'complete', finished_by: 7 });
    expect(b.finish_time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/);

    const done = await updateTask({ ...key, task_id: a.id, update_mask: ['status'], status: 'complete' }, 9);
    expect(done).toMatchObject({ status: 'complete', finished_by: 9, text: 'first' });
    const reopened = await updateTask({
      ...key,
      task_id: a.id,
      update_mask: ['status'],
      status: 'incomplete',
    });
    expect(reopened).toMatchObject({ status: 'incomplete', finish_time: '', finished_by: 0 });
    const renamed = await updateTask({ ...key, task_id: a.id, update_mask: ['text'], text: 'renamed' });
    expect(renamed).toMatchObject({ text: 'renamed', status: 'incomplete' });

    const page = await listTasks(key);
    expect(page.total_items).toBe(2);
    expect(page.tasks.map((t) => t.text)).toEqual(['renamed', 'second']);

    await call('DeleteTask', { ...key, task_id: a.id });
    const gone = await grpcError(call('GetTask', { ...key, task_id: a.id }));
    expect(gone.code).toBe(grpc.status.NOT_FOUND);
    expect((await listTasks(key)).tasks.map((t) => t.id)).toEqual([b.id]);
  });

  it('reorders every task exactly once, renumbering positions', async () => {
    const key = await story();
    const ids: number[] = [];
    for (const text of ['a', 'b', 'c']) ids.push((await createTask({ ...key, text })).id);
    const [a, b, c] = ids as [number, number, number];
    const res = await call<boards.ReorderTasksResponse__Output>('ReorderTasks', {
      ...key,
      task_ids: [c, a, b],
      page: 1,
      page_size: 2,
    });
    expect(res.tasks.map((t) => t.id)).toEqual([c, a]);
    expect(res.total_items).toBe(3);
    const rows = await admin.query('SELECT id, position FROM tasks WHERE project_id = $1 ORDER BY position', [
      key.project_id,
    ]);
    expect(rows.rows.map((r) => [Number(r.id), r.position])).toEqual([
      [c, 1],
      [a, 2],
      [b, 3],
    ]);
    const bad = await grpcError(call('ReorderTasks', { ...key, task_ids: [c, a], page: 1, page_size: 10 }));
    expect(bad.code).toBe(grpc.status.INVALID_ARGUMENT);
  });

  it('concurrent appends get distinct positions', async () => {
    const key = await story();
    await Promise.all(Array.from({ length: 8 }, (_, i) => createTask({ ...key, text: `t${i}` })));
    const rows = await admin.query('SELECT position FROM tasks WHERE project_id = $1 ORDER BY position', [
      key.project_id,
    ]);
    expect(rows.rows.map((r) => r.position)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('creates tasks with the story; batch-gets tasks per story (empty lists included)', async () => {
    const key = await story({
      tasks: [
        { text: 'x', status: '' },
        { text: 'y', status: 'complete' },
      ],
    });
    const other = await createStory({ project_id: key.project_id, text: 'no tasks' });
    const res = await call<boards.BatchGetStoryTasksResponse__Output>('BatchGetStoryTasks', {
      project_id: key.project_id,
      story_ids: [key.story_id, other.id],
    });
    const byStory = new Map(res.stories.map((s) => [s.story_id, s.tasks]));
    expect(byStory.get(key.story_id)!.map((t) => [t.text, t.status, t.finished_by])).toEqual([
      ['x', 'incomplete', 0],
      ['y', 'complete', 42],
    ]);
    expect(byStory.get(other.id)).toEqual([]);
  });

  it('validates: text required, status known, where has no properties, story must exist', async () => {
    const key = await story();
    const noText = await grpcError(createTask({ ...key, text: ' ' }));
    expect(reason(noText)).toBe('invalid-field');
    expect(reason(await grpcError(createTask({ ...key, text: 'x', status: 'done' })))).toBe('invalid-field');
    expect(reason(await grpcError(listTasks({ ...key, where: 'text:x' })))).toBe('invalid-filter');
    const missing = await grpcError(createTask({ project_id: key.project_id, story_id: 9999, text: 'x' }));
    expect(missing.code).toBe(grpc.status.NOT_FOUND);
  });
});

describe('comments over gRPC and PostgreSQL', () => {
  it('creates with the caller as author, lists by create time, gets', async () => {
    const key = await story();
    const first = await createComment({ ...key, text: 'one' }, 5);
    const second = await createComment({ ...key, text: 'two' }, 6);
    expect(first).toMatchObject({ text: 'one', author_id: 5 });
    const list = await call<boards.ListCommentsResponse__Output>('ListComments', {
      ...key,
      page: 1,
      page_size: 10,
    });
    expect(list.comments.map((c) => c.id)).toEqual([first.id, second.id]);
    expect(list.total_items).toBe(2);
    const got = await call<boards.GetCommentResponse__Output>('GetComment', {
      ...key,
      comment_id: second.id,
    });
    expect(got.comment).toMatchObject({ text: 'two', author_id: 6 });
  });

  it('only the author updates; the author or an admin deletes', async () => {
    const key = await story();
    const c = await createComment({ ...key, text: 'mine' }, 5);
    const denied = await grpcError(
      call('UpdateComment', { ...key, comment_id: c.id, update_mask: ['text'], text: 'x' }, 6),
    );
    expect(denied.code).toBe(grpc.status.PERMISSION_DENIED);
    const edited = await call<boards.UpdateCommentResponse__Output>(
      'UpdateComment',
      { ...key, comment_id: c.id, update_mask: ['text'], text: 'edited' },
      5,
    );
    expect(edited.comment!.text).toBe('edited');

    const notAdmin = await grpcError(call('DeleteComment', { ...key, comment_id: c.id, is_admin: false }, 6));
    expect(notAdmin.code).toBe(grpc.status.PERMISSION_DENIED);
    await call('DeleteComment', { ...key, comment_id: c.id, is_admin: true }, 6);
    const gone = await grpcError(call('GetComment', { ...key, comment_id: c.id }));
    expect(gone.code).toBe(grpc.status.NOT_FOUND);
  });

  it('batch-gets comments per story and cascades with the story', async () => {
    const key = await story();
    await createComment({ ...key, text: 'c1' });
    const res = await call<boards.BatchGetStoryCommentsResponse__Output>('BatchGetStoryComments', {
      project_id: key.project_id,
      story_ids: [key.story_id],
    });
    expect(res.stories[0]!.comments.map((c) => c.text)).toEqual(['c1']);
    await call('DeleteStory', key);
    const rows = await admin.query('SELECT 1 FROM comments WHERE project_id = $1', [key.project_id]);
    expect(rows.rowCount).toBe(0);
  });
});
