import { createKafka, ensureTopics } from '@flowboard/messaging';
import { createPool } from '@flowboard/pg-kit';
import { createLogger } from '@flowboard/service-kit';
import { uniqueSuffix, waitFor } from '@flowboard/testing';
import { api, createProject, infraSetting, signUp } from './support';

// What the API cannot show once a project is gone is checked inside the stack: the boards schema (as the
// boards role, read only) and the Kafka topic. Both come from the stack's infra.env (`infraSetting`).
const boardsDb = createPool({
  connectionString: infraSetting('BOARDS_DATABASE_URL'),
  schema: 'boards',
  applicationName: 'e2e-board-events',
  max: 1,
});
const logger = createLogger('e2e-board-events', 'silent');
const kafka = createKafka({
  brokers: infraSetting('KAFKA_BROKERS').split(','),
  clientId: 'e2e-board-events',
  logger,
});

afterAll(async () => {
  await boardsDb.end();
});

// Usually a second or two. Generous because another e2e file restarts Kafka (it waits for the consumer groups to
// be stable again before it ends), and boards' consumer and relay reconnect with back-off (up to 5 s apart).
const EVENT_WAIT_MS = 60_000;

async function boardRows(projectId: number) {
  const { rows } = await boardsDb.query<{ boards: number; stories: number; tasks: number; comments: number }>(
    `SELECT (SELECT count(*) FROM boards WHERE project_id = $1)::int AS boards,
            (SELECT count(*) FROM stories WHERE project_id = $1)::int AS stories,
            (SELECT count(*) FROM tasks WHERE project_id = $1)::int AS tasks,
            (SELECT count(*) FROM comments WHERE project_id = $1)::int AS comments`,
    [projectId],
  );
  return rows[0]!;
}

async function storyWithChildren(key: string, projectId: number, text: string): Promise<number> {
  const P = `/api/v1/projects/${projectId}`;
  const story = await api(`${P}/stories`, {
    method: 'POST',
    key,
    body: { text, tasks: [{ text: 'a task' }] },
  });
  expect(story.status).toBe(200);
  const comment = await api(`${P}/stories/${story.json.id}/comments`, {
    method: 'POST',
    key,
    body: { text: 'a comment' },
  });
  expect(comment.status).toBe(200);
  return story.json.id;
}

describe('board events', () => {
  it('deleting a project removes its board, stories, tasks and comments from boards', async () => {
    const owner = await signUp('doomed');
    const project = await createProject(owner.key);
    const keep = await createProject(owner.key);
    await storyWithChildren(owner.key, project.id, 'one');
    await storyWithChildren(owner.key, project.id, 'two');
    await storyWithChildren(owner.key, keep.id, 'kept');
    expect(await boardRows(project.id)).toEqual({ boards: 1, stories: 2, tasks: 2, comments: 2 });

    const deleted = await api(`/api/v1/projects/${project.id}`, { method: 'DELETE', key: owner.key });
    expect(deleted.status).toBe(200);
    expect((await api(`/api/v1/projects/${project.id}/stories`, { key: owner.key })).status).toBe(404);

    await waitFor(
      async () => ((await boardRows(project.id)).boards === 0 ? true : undefined),
      EVENT_WAIT_MS,
      'boards to delete the project board',
    );
    expect(await boardRows(project.id)).toEqual({ boards: 0, stories: 0, tasks: 0, comments: 0 });
    // Another project of the same owner is untouched.
    expect(await boardRows(keep.id)).toEqual({ boards: 1, stories: 1, tasks: 1, comments: 1 });
    const stories = await api(`/api/v1/projects/${keep.id}/stories`, { key: owner.key });
    expect(stories.json.totalItems).toBe(1);
  }, 90_000);

  it('deleting a story publishes boards.story-deleted.v1 on Kafka (through the outbox)', async () => {
    const topic = 'boards.story-deleted.v1';
    const seen: Array<{ key: string | null; value: string }> = [];
    const consumer = kafka.consumer({ groupId: `e2e-story-deleted-${uniqueSuffix()}` });
    await ensureTopics(kafka, [topic]);
    await consumer.connect();
    try {
      await consumer.subscribe({ topics: [topic], fromBeginning: true });
      await consumer.run({
        eachMessage: async ({ message }) => {
          seen.push({ key: message.key?.toString() ?? null, value: message.value?.toString() ?? '' });
        },
      });

      const owner = await signUp('story-events');
      const project = await createProject(owner.key);
      const storyId = await storyWithChildren(owner.key, project.id, 'short-lived');
      const res = await api(`/api/v1/projects/${project.id}/stories/${storyId}`, {
        method: 'DELETE',
        key: owner.key,
      });
      expect(res.status).toBe(200);

      const message = await waitFor(
        async () =>
          seen.find((m) => {
            const data = (JSON.parse(m.value) as { data?: { projectId?: number } }).data;
            return data?.projectId === project.id;
          }),
        EVENT_WAIT_MS,
        'the story-deleted event',
      );
      expect(message.key).toBe(String(project.id));
      const event = JSON.parse(message.value) as Record<string, unknown>;
      expect(event).toMatchObject({
        type: 'boards.story-deleted',
        version: 1,
        source: 'boards',
        data: { projectId: project.id, storyId, deletedBy: owner.id },
      });
      expect(await boardRows(project.id)).toMatchObject({ stories: 0, tasks: 0, comments: 0 });
    } finally {
      await consumer.disconnect();
    }
  }, 90_000);
});
