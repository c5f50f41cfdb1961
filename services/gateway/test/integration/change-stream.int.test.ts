import { resourceChangedMessage, resourceChangedV1 } from '@flowboard/events';
import { createKafka, ensureTopics, KafkaPublisher, partitionRanges } from '@flowboard/messaging';
import { createLogger } from '@flowboard/service-kit';
import { apiClient, EventStreamClient, requireEnv, waitFor } from '@flowboard/testing';
import { partitionOf } from '../../src/stream';
import { startHarness, type Harness } from './support/boot';

/**
 * The change stream's feed against a real Kafka (a container of this run): a replica that starts after the changes
 * were made serves the newest ones from its ring and the older ones from Kafka's history, in order, with no gap or
 * duplicate at the seam, then the live ones; a position older than the topic's retained history answers 410. The
 * back ends are the harness's fakes (membership answers the names); the whole path through the real services is
 * test/e2e's change-stream.e2e.test.ts.
 */
jest.setTimeout(120_000);

const { KAFKA_BROKERS } = requireEnv('KAFKA_BROKERS');
const logger = createLogger('stream-test', 'silent');
const kafka = createKafka({ brokers: KAFKA_BROKERS.split(','), clientId: 'stream-test', logger });
const publisher = new KafkaPublisher(kafka);
const PARTITIONS = 3;
const RING = 5;

let h: Harness;
let gateway: { baseUrl: string };
let owner: ReturnType<Harness['membership']['addUser']>;
let projectId: number;
let partition: number;
let published = 0;
const open: EventStreamClient[] = [];

/** `count` story.created changes of the project, through Kafka as the services' outboxes publish them. */
async function publishChanges(count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const n = ++published;
    const message = resourceChangedMessage('boards', {
      projectId,
      actorId: owner.user.id,
      type: 'story.created',
      subject: `story:${n}`,
      resource: { id: n, text: `change ${n}`, creator_id: owner.user.id },
    });
    await publisher.publish(message.topic, [{ key: message.key, value: JSON.stringify(message.payload) }]);
  }
}

const position = (offset: number) => `1-${partition.toString(36)}-${(offset + 1).toString(36)}`;
const storyNumbers = (events: Array<{ data: { data: { id: number } } }>) => events.map((e) => e.data.data.id);

beforeAll(async () => {
  await ensureTopics(kafka, [resourceChangedV1.topic], { partitions: PARTITIONS, replicationFactor: 1 });
  h = await startHarness();
  owner = h.membership.addUser('Tobias Fünke');
  projectId = h.membership.addProject(owner.user, 'Blue Man Group').project.id;
  partition = partitionOf(projectId, PARTITIONS);
  await publishChanges(30); // before the replica starts: 25 of them older than its ring
  gateway = await h.gateway({ KAFKA_BROKERS, STREAM_RING_EVENTS: String(RING), STREAM_RETENTION_HOURS: '0' });
});
afterAll(async () => {
  for (const client of open) client.close();
  await h?.stop();
  await publisher.disconnect();
});

describe('the change stream on real Kafka', () => {
  it('serves changes older than its ring from Kafka, then the ring, in order, with nothing twice', async () => {
    const api = apiClient(gateway.baseUrl);
    const base = (await partitionRanges(kafka, resourceChangedV1.topic))[partition]!.high - published;
    // The replica answers once it has read what Kafka held when it started.
    const first = await waitFor(
      async () => {
        const res = await api(
          `/api/v1/projects/${projectId}/events?after=${position(base - 1)}&limit=1000&wait=5`,
          {
            key: owner.key,
          },
        );
        return res.status === 200 ? res.json : undefined;
      },
      30_000,
      'the stream to serve',
    );
    expect(storyNumbers(first.events)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    expect(first.position).toBe(position(base + 29));
    expect(first.events[0].data.project).toEqual({ id: projectId, name: 'Blue Man Group' });

    // SSE from the tenth change: history (11-25), ring (26-30), then live (31-35).
    const sse = await EventStreamClient.open(`${gateway.baseUrl}/api/v1/projects/${projectId}/events`, {
      'X-Zen-ApiKey': owner.key,
      'Last-Event-ID': position(base + 9),
    });
    open.push(sse);
    expect(sse.response.status).toBe(200);
    await sse.waitFor((events) => (events.length >= 20 ? true : undefined), 'the 20 stored changes');
    await publishChanges(5);
    const all = await sse.waitFor(
      (events) => (events.length >= 25 ? events : undefined),
      'the 5 live changes',
    );
    expect(all.map((e) => JSON.parse(e.data).data.id)).toEqual(Array.from({ length: 25 }, (_, i) => i + 11));
    expect(all.map((e) => e.id)).toEqual(Array.from({ length: 25 }, (_, i) => position(base + 10 + i)));
  });

  it('answers 410 for a position older than what Kafka retains', async () => {
    const base = (await partitionRanges(kafka, resourceChangedV1.topic))[partition]!.high - published;
    const admin = kafka.admin();
    await admin.connect();
    try {
      await admin.fetchTopicMetadata({ topics: [resourceChangedV1.topic] });
      await admin.deleteTopicRecords({
        topic: resourceChangedV1.topic,
        partitions: [{ partition, offset: String(base + 20) }],
      });
    } finally {
      await admin.disconnect();
    }
    const api = apiClient(gateway.baseUrl);
    const gone = await api(`/api/v1/projects/${projectId}/events?after=${position(base + 2)}`, {
      key: owner.key,
    });
    expect(gone.status).toBe(410);
    expect(gone.json.type).toBe('urn:flowboard:problem:history-gone');
    // Within what is retained (and older than the ring) it still serves.
    const kept = await api(
      `/api/v1/projects/${projectId}/events?after=${position(base + 19)}&limit=3&wait=5`,
      {
        key: owner.key,
      },
    );
    expect(kept.status).toBe(200);
    expect(storyNumbers(kept.json.events)).toEqual([21, 22, 23]);
  });
});
