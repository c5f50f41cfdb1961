import { randomUUID } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import { makeEvent, parseEvent, projectDeletedV1, storyDeletedV1, type Envelope } from '@flowboard/events';
import { createKafka, ensureTopics, KafkaPublisher, type IncomingMessage } from '@flowboard/messaging';
import { createLogger } from '@flowboard/service-kit';
import { assertMatchesTopicSchema, uniqueSuffix, waitFor } from '@flowboard/testing';
import { makeDeleteStory } from '../../src/stories/application/delete-story';
import { createBoardsStore } from '../../src/db/boards-store';
import {
  admin,
  boardsApp,
  call,
  createBoard,
  createStory,
  grpcError,
  KAFKA_BROKERS,
  newProjectId,
  useBoardsService,
} from './harness';

// The suite's own consumer group: the stack's boards service (group `boards`) must not do this suite's work.
const GROUP = `boards-int-${uniqueSuffix()}`;
useBoardsService({ consumerGroup: GROUP });

const logger = createLogger('boards-events-test', 'silent');
const kafka = createKafka({ brokers: KAFKA_BROKERS.split(','), clientId: 'boards-events-test', logger });
const publisher = new KafkaPublisher(kafka);

/** Every message on `topics` from the beginning, collected by a throw-away consumer group. */
async function tail(topics: string[]) {
  const seen: IncomingMessage[] = [];
  const consumer = kafka.consumer({ groupId: `boards-int-tail-${uniqueSuffix()}` });
  await ensureTopics(kafka, topics);
  await consumer.connect();
  await consumer.subscribe({ topics, fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ topic, partition, message }) => {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(message.headers ?? {})) if (v !== undefined) headers[k] = String(v);
      seen.push({
        topic,
        partition,
        offset: message.offset,
        key: message.key?.toString() ?? null,
        value: message.value,
        headers,
      });
    },
  });
  return { seen, stop: () => consumer.disconnect() };
}

/** Rows of the project left in each table that hangs off a board. */
async function leftovers(projectId: number) {
  const tables = [
    'boards',
    'phases',
    'stories',
    'story_milestones',
    'story_steps',
    'tags',
    'story_tags',
    'tasks',
  ];
  const counts: Record<string, number> = {};
  for (const table of [...tables, 'comments']) {
    const { rows } = await admin.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM ${table} WHERE project_id = $1`,
      [projectId],
    );
    counts[table] = rows[0]!.n;
  }
  return counts;
}

/** A board with two stories, each with a task, a comment, a tag link and history. */
async function populatedBoard(): Promise<number> {
  const projectId = newProjectId();
  await createBoard(projectId);
  for (const text of ['one', 'two']) {
    const story = await createStory({ project_id: projectId, text });
    await call('CreateTask', { project_id: projectId, story_id: story.id, text: `${text} task` });
    await call('CreateComment', { project_id: projectId, story_id: story.id, text: `${text} comment` });
    // Tags through SQL: this suite is about deletion, not about how tags are added.
    await admin.query(
      `WITH tag AS (INSERT INTO tags (project_id, name) VALUES ($1, $2) RETURNING id)
       INSERT INTO story_tags (project_id, story_id, tag_id) SELECT $1, $3, id FROM tag`,
      [projectId, `tag-${text}`, story.id],
    );
  }
  return projectId;
}

const projectDeleted = (projectId: number) =>
  makeEvent(projectDeletedV1, 'membership', {
    projectId,
    projectName: 'Doomed',
    ownerId: 1,
    deletedBy: 1,
    deletedAt: new Date().toISOString(),
  });

const publishEvent = (event: Envelope, key: string) =>
  publisher.publish(projectDeletedV1.topic, [{ key, value: JSON.stringify(event) }]);

/** Waits until the suite's group has committed every message of the topic (so each was handled). */
async function waitUntilConsumed(topic: string) {
  const kafkaAdmin = kafka.admin();
  await kafkaAdmin.connect();
  try {
    await waitFor(
      async () => {
        const ends = await kafkaAdmin.fetchTopicOffsets(topic);
        const [committed] = await kafkaAdmin.fetchOffsets({ groupId: GROUP, topics: [topic] });
        const done = ends.every((end) => {
          const at = committed?.partitions.find((p) => p.partition === end.partition)?.offset ?? '-1';
          return end.high === '0' || at === end.high;
        });
        return done ? true : undefined;
      },
      20_000,
      `group ${GROUP} to consume ${topic}`,
    );
  } finally {
    await kafkaAdmin.disconnect();
  }
}

beforeAll(async () => {
  await ensureTopics(kafka, [projectDeletedV1.topic, storyDeletedV1.topic]);
  await waitFor(async () => (boardsApp().consumerReady() ? true : undefined), 30_000, 'the consumer to join');
});

afterAll(async () => {
  await publisher.disconnect();
});

describe('story delete → outbox → Kafka', () => {
  it('writes boards.story-deleted.v1 in the delete transaction and the relay publishes it', async () => {
    const topic = await tail([storyDeletedV1.topic]);
    try {
      const projectId = newProjectId();
      await createBoard(projectId);
      const story = await createStory({ project_id: projectId });
      await call('DeleteStory', { project_id: projectId, story_id: story.id }, 77);

      const { rows } = await admin.query<{ id: string; key: string; payload: unknown; headers: object }>(
        'SELECT id, key, payload, headers FROM outbox WHERE topic = $1 AND key = $2',
        [storyDeletedV1.topic, String(projectId)],
      );
      expect(rows).toHaveLength(1);
      const row = rows[0]!;
      assertMatchesTopicSchema(storyDeletedV1.topic, row.payload); // the contract its consumers read
      const event = parseEvent(storyDeletedV1, JSON.stringify(row.payload));
      expect(event.id).toBe(row.id);
      expect(event.source).toBe('boards');
      expect(event.data).toMatchObject({ projectId, storyId: story.id, deletedBy: 77 });
      expect(row.headers).toEqual({ 'x-request-id': 'boards-int-test' });

      const message = await waitFor(
        async () => topic.seen.find((m) => m.value?.toString().includes(row.id)),
        15_000,
        'the story-deleted event on Kafka',
      );
      expect(message.key).toBe(String(projectId));
      assertMatchesTopicSchema(storyDeletedV1.topic, message.value);
      expect(parseEvent(storyDeletedV1, message.value)).toEqual(event);
      // The relay marks the row published after Kafka acknowledged it: the message can be read before that.
      await waitFor(
        async () =>
          (await admin.query('SELECT 1 FROM outbox WHERE id = $1 AND published_at IS NOT NULL', [row.id]))
            .rowCount === 1 || undefined,
        15_000,
        'the outbox row marked published',
      );
    } finally {
      await topic.stop();
    }
  });

  it('a story that does not exist is NOT_FOUND and leaves no event', async () => {
    const projectId = newProjectId();
    await createBoard(projectId);
    const err = await grpcError(call('DeleteStory', { project_id: projectId, story_id: 5 }));
    expect(err.code).toBe(grpc.status.NOT_FOUND);
    const { rowCount } = await admin.query('SELECT 1 FROM outbox WHERE key = $1', [String(projectId)]);
    expect(rowCount).toBe(0);
  });

  it('a failing outbox write rolls the delete back (one transaction)', async () => {
    const projectId = newProjectId();
    await createBoard(projectId);
    const story = await createStory({ project_id: projectId });
    // The same tables, but the outbox named in a schema that does not exist: the enqueue fails after the delete.
    const broken = makeDeleteStory(createBoardsStore(admin, `no_such_schema_${uniqueSuffix()}`));
    await expect(broken({ projectId, storyId: story.id, deletedBy: 1 })).rejects.toThrow(/no_such_schema/);
    const still = await call<{ story: { id: number } }>('GetStory', {
      project_id: projectId,
      story_id: story.id,
    });
    expect(still.story.id).toBe(story.id);
  });
});

describe('membership.project-deleted.v1 consumer', () => {
  it('deletes the board with its phases, stories, tags, tasks, comments and history', async () => {
    const projectId = await populatedBoard();
    const other = await populatedBoard();
    const before = await leftovers(projectId);
    expect(before).toMatchObject({
      boards: 1,
      phases: 5,
      stories: 2,
      tags: 2,
      story_tags: 2,
      tasks: 2,
      comments: 2,
    });
    expect(before.story_milestones).toBeGreaterThan(0);
    expect(before.story_steps).toBeGreaterThan(0);

    const event = projectDeleted(projectId);
    await publishEvent(event, String(projectId));
    await waitFor(
      async () => ((await leftovers(projectId)).boards === 0 ? true : undefined),
      15_000,
      'the board to be deleted',
    );
    expect(Object.values(await leftovers(projectId)).every((n) => n === 0)).toBe(true);
    expect(await leftovers(other)).toMatchObject({ boards: 1, stories: 2, tasks: 2, comments: 2, tags: 2 });
    const tomb = await admin.query('SELECT event_id FROM deleted_projects WHERE project_id = $1', [
      projectId,
    ]);
    expect(tomb.rows).toEqual([{ event_id: event.id }]);
  });

  it('a redelivered event is harmless, and the deleted project never gets a board again', async () => {
    const projectId = await populatedBoard();
    const event = projectDeleted(projectId);
    await publishEvent(event, String(projectId));
    await publishEvent(event, String(projectId)); // the relay may publish twice after a crash
    await waitUntilConsumed(projectDeletedV1.topic);
    expect(Object.values(await leftovers(projectId)).every((n) => n === 0)).toBe(true);
    const tombs = await admin.query('SELECT event_id FROM deleted_projects WHERE project_id = $1', [
      projectId,
    ]);
    expect(tombs.rows).toEqual([{ event_id: event.id }]);

    // A late CreateBoard (a retry of the project's creation) must not resurrect it.
    expect(await createBoard(projectId)).toEqual([]);
    expect((await leftovers(projectId)).boards).toBe(0);
  });

  it('dead-letters a message that is not a valid event, and keeps consuming', async () => {
    const dlq = await tail([`${GROUP}-dlq`]);
    try {
      const marker = randomUUID();
      await publisher.publish(projectDeletedV1.topic, [{ key: 'x', value: `not json ${marker}` }]);
      const projectId = await populatedBoard();
      await publishEvent(projectDeleted(projectId), 'x'); // same key: behind the poison message
      const dead = await waitFor(
        async () => dlq.seen.find((m) => m.value?.toString().includes(marker)),
        15_000,
        'the poison message in the dead-letter topic',
      );
      expect(dead.headers['x-dlq-reason']).toMatch(/not JSON/);
      await waitFor(
        async () => ((await leftovers(projectId)).boards === 0 ? true : undefined),
        15_000,
        'the next event to be handled',
      );
    } finally {
      await dlq.stop();
    }
  });
});
