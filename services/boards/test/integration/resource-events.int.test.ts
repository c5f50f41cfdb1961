import * as grpc from '@grpc/grpc-js';
import { parseEvent, resourceChangedV1, storyDeletedV1 } from '@flowboard/events';
import { createKafka, ensureTopics } from '@flowboard/messaging';
import type { boards } from '@flowboard/proto';
import { createLogger } from '@flowboard/service-kit';
import { changeEventLog, changeEventsInOutbox, tailTopic } from '@flowboard/testing';
import {
  admin,
  call,
  createBoard,
  createStory,
  grpcError,
  KAFKA_BROKERS,
  newProjectId,
  useBoardsService,
} from './harness';

// flowboard.resource-changed.v1: what each boards write puts in the outbox (in its transaction), compared with
// what the service's own Get RPCs answer; and that the relay publishes it to Kafka in order.
useBoardsService();

const WRITTEN_BY = { source: 'boards', requestId: 'boards-int-test' };
/** The project's change events in the outbox, in the order they were written (and are published). */
const eventsOf = (projectId: number) => changeEventsInOutbox(admin, projectId, WRITTEN_BY);
/** Each call answers the events (their data) written since the previous call. */
const eventLog = (projectId: number) => changeEventLog(admin, projectId, WRITTEN_BY);

const getStory = (project_id: number, story_id: number) =>
  call<boards.GetStoryResponse__Output>('GetStory', { project_id, story_id }).then((r) => r.story!);
const updateStory = (request: Partial<boards.UpdateStoryRequest>, userId = 42) =>
  call<boards.UpdateStoryResponse__Output>('UpdateStory', request, userId).then((r) => r.story!);
const getTask = (project_id: number, story_id: number, task_id: number) =>
  call<boards.GetTaskResponse__Output>('GetTask', { project_id, story_id, task_id }).then((r) => r.task!);
const getComment = (project_id: number, story_id: number, comment_id: number) =>
  call<boards.GetCommentResponse__Output>('GetComment', { project_id, story_id, comment_id }).then(
    (r) => r.comment!,
  );
const getTag = (project_id: number, tag: string) =>
  call<boards.GetTagResponse__Output>('GetTag', { project_id, tag }).then((r) => r.tag!);

const failureCode = async (promise: Promise<unknown>) => (await grpcError(promise)).code;

async function board() {
  const projectId = newProjectId();
  const phases = await createBoard(projectId);
  return { projectId, phases, next: eventLog(projectId) };
}

describe('stories', () => {
  it('a create publishes story.created, then task.created and story.tagged for what it was created with', async () => {
    const { projectId, next } = await board();
    expect(await next()).toEqual([]); // a new board publishes nothing
    const story = await createStory(
      { project_id: projectId, tasks: [{ text: 'Frame', status: '' }], tags: [{ id: 0, name: 'house' }] },
      31,
    );
    const { tasks } = await call<boards.ListTasksResponse__Output>('ListTasks', {
      project_id: projectId,
      story_id: story.id,
      page: 1,
      page_size: 10,
    });
    const change = { projectId, actorId: 31, subject: `story:${story.id}` };
    const house = await getTag(projectId, 'house');
    expect(await next()).toEqual([
      { ...change, type: 'story.created', resource: await getStory(projectId, story.id) },
      { ...change, type: 'task.created', resource: tasks[0] },
      { ...change, type: 'tag.created', subject: `tag:${house.id}`, resource: house }, // made by the create
      { ...change, type: 'story.tagged', resource: house },
    ]);
    expect(story).toEqual(await getStory(projectId, story.id));
  });

  it('an update publishes story.updated by the caller, with the story as GetStory answers it after', async () => {
    const { projectId, next } = await board();
    const story = await createStory({ project_id: projectId });
    await next();
    const key = { project_id: projectId, story_id: story.id };
    await updateStory({ ...key, update_mask: ['text', 'owner'], text: 'Renamed', owner_id: 9 }, 77);
    expect(await next()).toEqual([
      {
        projectId,
        actorId: 77,
        type: 'story.updated',
        subject: `story:${story.id}`,
        resource: await getStory(projectId, story.id),
      },
    ]);
  });

  it('one PUT that changes several things: updated, moved, blocked, each its own event; then unblocked', async () => {
    const { projectId, phases, next } = await board();
    const story = await createStory({ project_id: projectId });
    await next();
    const key = { project_id: projectId, story_id: story.id };
    await updateStory(
      {
        ...key,
        update_mask: ['text', 'phase', 'status', 'blocked_reason'],
        text: 'Moved and blocked',
        phase_id: phases[2]!.id,
        status: 'blocked',
        blocked_reason: 'waiting for bricks',
      },
      77,
    );
    const after = await getStory(projectId, story.id);
    expect(after).toMatchObject({ status: 'blocked', phase: { id: phases[2]!.id }, version: 2 });
    const events = await next();
    expect(events.map((e) => e.type)).toEqual(['story.updated', 'story.moved', 'story.blocked']);
    for (const event of events)
      expect(event).toEqual({
        projectId,
        actorId: 77,
        type: event.type,
        subject: `story:${story.id}`,
        resource: after,
      });
    const ids = (await eventsOf(projectId)).slice(-3).map((e) => e.id);
    expect(new Set(ids).size).toBe(3);

    await updateStory({ ...key, update_mask: ['status'], status: 'started' }, 78);
    expect(await next()).toEqual([
      {
        projectId,
        actorId: 78,
        type: 'story.unblocked',
        subject: `story:${story.id}`,
        resource: await getStory(projectId, story.id),
      },
    ]);
    await updateStory({ ...key, update_mask: ['status'], status: 'ready' }, 78);
    expect((await next()).map((e) => e.type)).toEqual(['story.updated']);
    await updateStory({ ...key, update_mask: ['phase'], phase_id: phases[4]!.id }, 78);
    expect((await next()).map((e) => e.type)).toEqual(['story.moved']);
  });

  it('a PUT that changes nothing publishes nothing (same values, the phase it is in)', async () => {
    const { projectId, phases, next } = await board();
    const story = await createStory({ project_id: projectId, text: 'Same', color: 'red' });
    await next();
    const key = { project_id: projectId, story_id: story.id };
    const same = await updateStory({
      ...key,
      update_mask: ['text', 'color', 'phase'],
      text: 'Same',
      color: 'red',
      phase_id: phases[0]!.id,
    });
    expect(same.version).toBe(story.version);
    expect(await next()).toEqual([]);
  });

  it('a refused PUT publishes nothing: stale version (412), invalid state (400), unknown story (404)', async () => {
    const { projectId, phases, next } = await board();
    const story = await createStory({ project_id: projectId });
    await updateStory({ project_id: projectId, story_id: story.id, update_mask: ['text'], text: 'v2' });
    await next();
    const key = { project_id: projectId, story_id: story.id };
    expect(
      await failureCode(
        updateStory({ ...key, expected_version: 1, update_mask: ['phase'], phase_id: phases[2]!.id }),
      ),
    ).toBe(grpc.status.FAILED_PRECONDITION);
    expect(await failureCode(updateStory({ ...key, update_mask: ['status'], status: 'started' }))).toBe(
      grpc.status.INVALID_ARGUMENT,
    );
    expect(
      await failureCode(updateStory({ ...key, story_id: story.id + 1, update_mask: ['text'], text: 'x' })),
    ).toBe(grpc.status.NOT_FOUND);
    expect(await next()).toEqual([]);
    expect(await getStory(projectId, story.id)).toMatchObject({ text: 'v2', version: 2 });
  });

  it('a bulk update publishes per story it changed, in board order; a rolled-back one publishes nothing', async () => {
    const { projectId, phases, next } = await board();
    const a = await createStory({ project_id: projectId, text: 'a', phase_id: phases[2]!.id });
    const b = await createStory({ project_id: projectId, text: 'b', phase_id: phases[1]!.id });
    const same = await createStory({
      project_id: projectId,
      text: 'c',
      phase_id: phases[2]!.id,
      color: 'red',
    });
    await next();
    const bulk = (request: Partial<boards.UpdateStoriesRequest>, userId = 42) =>
      call<boards.UpdateStoriesResponse__Output>(
        'UpdateStories',
        { project_id: projectId, page: 1, page_size: 100, ...request },
        userId,
      );
    await bulk(
      { where: `phase:${phases[1]!.id} or phase:${phases[2]!.id}`, update_mask: ['color'], color: 'red' },
      55,
    );
    // Board order: phase 1's story, then phase 2's by position; the red one did not change.
    expect(await next()).toEqual(
      await Promise.all(
        [b, a].map(async (s) => ({
          projectId,
          actorId: 55,
          type: 'story.updated',
          subject: `story:${s.id}`,
          resource: await getStory(projectId, s.id),
        })),
      ),
    );
    expect((await getStory(projectId, same.id)).version).toBe(1);

    // The first story takes the status, the one in Archive cannot: all or nothing, so no event either.
    const archived = await createStory({ project_id: projectId, text: 'd', phase_id: phases[4]!.id });
    await next();
    expect(
      await failureCode(
        bulk({ where: `not(phase:${phases[1]!.id})`, update_mask: ['status'], status: 'ready' }),
      ),
    ).toBe(grpc.status.INVALID_ARGUMENT);
    expect(await next()).toEqual([]);
    expect((await getStory(projectId, a.id)).status).toBe('started');
    expect((await getStory(projectId, archived.id)).status).toBe('finished');
  });

  it('reordering a phase publishes nothing', async () => {
    const { projectId, phases, next } = await board();
    const a = await createStory({ project_id: projectId });
    const b = await createStory({ project_id: projectId });
    await next();
    await call('ReorderPhaseStories', {
      project_id: projectId,
      phase_id: phases[0]!.id,
      story_ids: [b.id, a.id],
    });
    expect(await next()).toEqual([]);
  });

  it('a delete publishes story.deleted with the story as it was, and nothing for its tasks and comments', async () => {
    const { projectId, next } = await board();
    const story = await createStory({ project_id: projectId, tasks: [{ text: 't', status: '' }] });
    await call('CreateComment', { project_id: projectId, story_id: story.id, text: 'c' });
    await updateStory({ project_id: projectId, story_id: story.id, update_mask: ['size'], size: 'L' });
    const last = await getStory(projectId, story.id);
    await next();
    const key = { project_id: projectId, story_id: story.id };
    expect(await failureCode(call('DeleteStory', { ...key, expected_version: 1 }, 66))).toBe(
      grpc.status.FAILED_PRECONDITION,
    );
    expect(await next()).toEqual([]);
    await call('DeleteStory', key, 66);
    expect(await next()).toEqual([
      { projectId, actorId: 66, type: 'story.deleted', subject: `story:${story.id}`, resource: last },
    ]);
    // files still gets its own event, in the same transaction.
    const { rowCount } = await admin.query('SELECT 1 FROM outbox WHERE topic = $1 AND key = $2', [
      storyDeletedV1.topic,
      String(projectId),
    ]);
    expect(rowCount).toBe(1);
  });
});

describe('tasks', () => {
  it('create, update, complete, no-op, stale, reorder, delete', async () => {
    const { projectId, next } = await board();
    const story = await createStory({ project_id: projectId });
    await next();
    const key = { project_id: projectId, story_id: story.id };
    const change = { projectId, subject: `story:${story.id}` };
    const task = (await call<boards.CreateTaskResponse__Output>('CreateTask', { ...key, text: 'Paint' }, 21))
      .task!;
    expect(await next()).toEqual([
      { ...change, actorId: 21, type: 'task.created', resource: await getTask(projectId, story.id, task.id) },
    ]);

    await call('UpdateTask', { ...key, task_id: task.id, update_mask: ['status'], status: 'complete' }, 22);
    const completed = await getTask(projectId, story.id, task.id);
    expect(completed).toMatchObject({ status: 'complete', finished_by: 22, version: 2 });
    expect(await next()).toEqual([{ ...change, actorId: 22, type: 'task.updated', resource: completed }]);

    await call(
      'UpdateTask',
      { ...key, task_id: task.id, update_mask: ['text', 'status'], text: 'Paint', status: 'complete' },
      22,
    );
    expect(await next()).toEqual([]);
    expect(
      await failureCode(
        call('UpdateTask', {
          ...key,
          task_id: task.id,
          expected_version: 1,
          update_mask: ['text'],
          text: 'x',
        }),
      ),
    ).toBe(grpc.status.FAILED_PRECONDITION);
    expect(await next()).toEqual([]);

    const other = (await call<boards.CreateTaskResponse__Output>('CreateTask', { ...key, text: 'Sand' }))
      .task!;
    await next();
    await call('ReorderTasks', { ...key, task_ids: [other.id, task.id], page: 1, page_size: 10 });
    expect(await next()).toEqual([]);

    expect(await failureCode(call('DeleteTask', { ...key, task_id: task.id, expected_version: 1 }))).toBe(
      grpc.status.FAILED_PRECONDITION,
    );
    expect(await next()).toEqual([]);
    await call('DeleteTask', { ...key, task_id: task.id }, 23);
    expect(await next()).toEqual([{ ...change, actorId: 23, type: 'task.deleted', resource: completed }]);
    expect(await failureCode(call('DeleteTask', { ...key, task_id: task.id }))).toBe(grpc.status.NOT_FOUND);
    expect(await next()).toEqual([]);
  });
});

describe('comments', () => {
  it('create, edit by the author, a refused edit, a same-text edit, delete by an admin', async () => {
    const { projectId, next } = await board();
    const story = await createStory({ project_id: projectId });
    await next();
    const key = { project_id: projectId, story_id: story.id };
    const change = { projectId, subject: `story:${story.id}` };
    const comment = (
      await call<boards.CreateCommentResponse__Output>('CreateComment', { ...key, text: 'First' }, 11)
    ).comment!;
    expect(await next()).toEqual([
      {
        ...change,
        actorId: 11,
        type: 'comment.created',
        resource: await getComment(projectId, story.id, comment.id),
      },
    ]);

    const edit = { ...key, comment_id: comment.id, update_mask: ['text'] };
    await call('UpdateComment', { ...edit, text: 'Edited' }, 11);
    const edited = await getComment(projectId, story.id, comment.id);
    expect(edited).toMatchObject({ text: 'Edited', version: 2 });
    expect(await next()).toEqual([{ ...change, actorId: 11, type: 'comment.updated', resource: edited }]);

    expect(await failureCode(call('UpdateComment', { ...edit, text: 'Not mine' }, 12))).toBe(
      grpc.status.PERMISSION_DENIED,
    );
    await call('UpdateComment', { ...edit, text: 'Edited' }, 11);
    expect(await failureCode(call('UpdateComment', { ...edit, text: 'x', expected_version: 1 }, 11))).toBe(
      grpc.status.FAILED_PRECONDITION,
    );
    expect(
      await failureCode(call('CreateComment', { ...key, story_id: story.id + 1, text: 'Nowhere' }, 11)),
    ).toBe(grpc.status.NOT_FOUND);
    expect(await next()).toEqual([]);

    await call('DeleteComment', { ...key, comment_id: comment.id, is_admin: true }, 13);
    expect(await next()).toEqual([{ ...change, actorId: 13, type: 'comment.deleted', resource: edited }]);
  });
});

describe('tags', () => {
  const page = { page: 1, page_size: 100 };

  it('story side: add (new link only), replace (untagged, then tagged), remove; a refused write: nothing', async () => {
    const { projectId, next } = await board();
    const story = await createStory({ project_id: projectId });
    await next();
    const key = { project_id: projectId, story_id: story.id };
    const change = { projectId, actorId: 5, subject: `story:${story.id}` };

    await call('AddStoryTag', { ...key, tag: { id: 0, name: 'red' }, ...page }, 5);
    const red = await getTag(projectId, 'red');
    const created = (tag: boards.Tag__Output) => ({
      ...change,
      type: 'tag.created',
      subject: `tag:${tag.id}`,
      resource: tag,
    });
    expect(await next()).toEqual([created(red), { ...change, type: 'story.tagged', resource: red }]);
    await call('AddStoryTag', { ...key, tag: { id: red.id, name: '' }, ...page }, 5);
    expect(await next()).toEqual([]); // already carried

    await call(
      'SetStoryTags',
      {
        ...key,
        tags: [
          { id: 0, name: 'blue' },
          { id: 0, name: 'green' },
        ],
        ...page,
      },
      5,
    );
    const [blue, green] = [await getTag(projectId, 'blue'), await getTag(projectId, 'green')];
    expect(await next()).toEqual([
      created(blue),
      created(green),
      { ...change, type: 'story.untagged', resource: red },
      ...[blue, green]
        .sort((x, y) => x.id - y.id)
        .map((tag) => ({ ...change, type: 'story.tagged', resource: tag })),
    ]);

    expect(
      await failureCode(call('SetStoryTags', { ...key, tags: [{ id: 999_999_999, name: '' }], ...page }, 5)),
    ).toBe(grpc.status.INVALID_ARGUMENT);
    expect(await next()).toEqual([]);

    await call('RemoveStoryTag', { ...key, tag: 'blue' }, 5);
    expect(await next()).toEqual([{ ...change, type: 'story.untagged', resource: blue }]);
    expect(await failureCode(call('RemoveStoryTag', { ...key, tag: 'blue' }, 5))).toBe(grpc.status.NOT_FOUND);
    expect(await next()).toEqual([]);
  });

  it('tag side: add, replace, remove; a tag created, renamed, and deleted (after it comes off its stories)', async () => {
    const { projectId, next } = await board();
    const [a, b, c] = [
      await createStory({ project_id: projectId, text: 'a' }),
      await createStory({ project_id: projectId, text: 'b' }),
      await createStory({ project_id: projectId, text: 'c' }),
    ];
    await call('CreateTag', { project_id: projectId, name: 'urgent' }, 6);
    const tag = await getTag(projectId, 'urgent');
    const own = (type: string, resource: boards.Tag__Output) => ({
      projectId,
      actorId: 6,
      type,
      subject: `tag:${tag.id}`,
      resource,
    });
    expect((await next()).map((e) => e.type)).toEqual([
      'story.created',
      'story.created',
      'story.created',
      'tag.created',
    ]);
    const event = (type: string, storyId: number, resource = tag) => ({
      projectId,
      actorId: 6,
      type,
      subject: `story:${storyId}`,
      resource,
    });

    await call('AddTagStory', { project_id: projectId, tag: 'urgent', story_id: a.id, ...page }, 6);
    expect(await next()).toEqual([event('story.tagged', a.id)]);
    await call(
      'SetTagStories',
      { project_id: projectId, tag: 'urgent', story_ids: [b.id, c.id], ...page },
      6,
    );
    expect(await next()).toEqual([
      event('story.untagged', a.id),
      event('story.tagged', b.id),
      event('story.tagged', c.id),
    ]);
    expect(
      await failureCode(
        call(
          'SetTagStories',
          { project_id: projectId, tag: 'urgent', story_ids: [a.id, 999_999], ...page },
          6,
        ),
      ),
    ).toBe(grpc.status.INVALID_ARGUMENT);
    expect(await next()).toEqual([]);

    await call('RemoveTagStory', { project_id: projectId, tag: String(tag.id), story_id: b.id }, 6);
    expect(await next()).toEqual([event('story.untagged', b.id)]);

    await call(
      'UpdateTag',
      { project_id: projectId, tag: 'urgent', update_mask: ['name'], name: 'URGENT!' },
      6,
    );
    const renamed = await getTag(projectId, String(tag.id));
    expect(await next()).toEqual([own('tag.updated', renamed)]);
    await call('AddTagStory', { project_id: projectId, tag: 'urgent!', story_id: a.id, ...page }, 6);
    expect(await next()).toEqual([event('story.tagged', a.id, renamed)]);

    expect(
      await failureCode(call('DeleteTag', { project_id: projectId, tag: 'urgent!', expected_version: 1 }, 6)),
    ).toBe(grpc.status.FAILED_PRECONDITION);
    expect(await next()).toEqual([]);
    await call('DeleteTag', { project_id: projectId, tag: 'urgent!' }, 6);
    expect(await next()).toEqual([
      event('story.untagged', a.id, renamed),
      event('story.untagged', c.id, renamed),
      own('tag.deleted', renamed),
    ]);
  });
});

describe('phases', () => {
  it('create, move, reorder, delete: the phase’s own event, then phase.updated for each phase it shifted', async () => {
    const { projectId, next } = await board();
    const phasesNow = async () =>
      (await call<boards.ListPhasesResponse__Output>('ListPhases', { project_id: projectId })).phases;
    /** `type name@index` of each event, each checked against the phase as ListPhases answers it after the write. */
    const events = async () => {
      const now = await phasesNow();
      return (await next()).map((e) => {
        const phase = e.resource as unknown as boards.Phase__Output;
        expect([e.actorId, e.subject]).toEqual([8, `phase:${phase.id}`]);
        if (e.type !== 'phase.deleted') expect(phase).toEqual(now.find((p) => p.id === phase.id));
        return `${e.type} ${phase.name}@${phase.index}`;
      });
    };

    const created = await call<boards.CreatePhaseResponse__Output>(
      'CreatePhase',
      { project_id: projectId, name: 'Review', description: '', has_index: true, index: 3, limit: 0 },
      8,
    );
    expect(await events()).toEqual([
      'phase.created Review@3',
      'phase.updated Complete@4',
      'phase.updated Archive@5',
    ]);

    const review = created.phase!.id;
    await call(
      'UpdatePhase',
      { project_id: projectId, phase_id: review, update_mask: ['index'], index: 1 },
      8,
    );
    expect(await events()).toEqual([
      'phase.updated Review@1',
      'phase.updated Ready@2',
      'phase.updated Working@3',
    ]);

    const ids = (await phasesNow()).map((p) => p.id); // Backlog, Review, Ready, Working, Complete, Archive
    await call(
      'ReorderPhases',
      { project_id: projectId, phase_ids: [ids[0], ids[2], ids[1], ...ids.slice(3)] },
      8,
    );
    expect(await events()).toEqual(['phase.updated Ready@1', 'phase.updated Review@2']);

    await call('DeletePhase', { project_id: projectId, phase_id: review }, 8);
    expect(await events()).toEqual([
      'phase.deleted Review@2',
      'phase.updated Working@2',
      'phase.updated Complete@3',
      'phase.updated Archive@4',
    ]);
  });
});

describe('relay', () => {
  const logger = createLogger('boards-resource-events-test', 'silent');
  const kafka = createKafka({
    brokers: KAFKA_BROKERS.split(','),
    clientId: 'boards-resource-events-test',
    logger,
  });

  it("publishes a PUT's events to Kafka in order, keyed by the project, as they are in the outbox", async () => {
    await ensureTopics(kafka, [resourceChangedV1.topic]);
    const tail = await tailTopic(kafka, resourceChangedV1.topic, 'boards-int-tail');
    try {
      const { projectId, phases } = await board();
      const story = await createStory({ project_id: projectId });
      await updateStory({
        project_id: projectId,
        story_id: story.id,
        update_mask: ['owner', 'phase', 'status'],
        owner_id: 3,
        phase_id: phases[3]!.id,
        status: 'blocked',
      });
      const outbox = await eventsOf(projectId);
      expect(outbox.map((e) => e.data.type)).toEqual([
        'story.created',
        'story.updated',
        'story.moved',
        'story.blocked',
      ]);
      const published = await tail.values(String(projectId), outbox.length);
      expect(published.map((value) => parseEvent(resourceChangedV1, value))).toEqual(outbox);
      const { rows } = await admin.query('SELECT 1 FROM outbox WHERE key = $1 AND published_at IS NULL', [
        String(projectId),
      ]);
      expect(rows).toEqual([]);
    } finally {
      await tail.stop();
    }
  });
});
