import type { webhooks } from '@flowboard/proto';
import {
  change,
  releaseSuite,
  ensureTopic,
  groupId,
  migrateSchema,
  newProjectId,
  publish,
  Receiver,
  settledDeliveries,
  startWebhooks,
  testConfig,
  verifies,
  waitFor,
  type StartedWebhooks,
} from './harness';
import { INTERRUPTED } from '../../src/db/delivery-repository';

// Two replicas in one consumer group, over one database. The first is stopped mid-delivery without draining: its
// attempt in flight is abandoned unrecorded (as if the process had died) and its partitions move to the second,
// which must deliver everything, the interrupted delivery again, with the same webhook-id.

const receiver = new Receiver();
const projectId = newProjectId();
let a: StartedWebhooks | undefined;
let b: StartedWebhooks | undefined;

beforeAll(async () => {
  await migrateSchema();
  await ensureTopic();
  await receiver.start();
});

afterAll(async () => {
  await a?.stop();
  await b?.stop();
  await receiver.stop();
  await releaseSuite([projectId]);
});

it('loses nothing when a replica stops abruptly mid-delivery; the duplicate carries the same webhook-id', async () => {
  const group = groupId();
  // No drain: whatever is in flight at stop is abandoned. A 5 s attempt timeout, so the held request is still in
  // flight when the replica stops; a short lease margin, so the survivor takes it over quickly.
  const config = testConfig(group, {
    DISPATCH_DRAIN_MS: '0',
    DELIVERY_TIMEOUT_MS: '5000',
    DELIVERY_LEASE_MARGIN_MS: '500',
  });
  a = await startWebhooks(config);
  const { webhook, secret } = await a.client
    .createWebhook({ project_id: projectId, url: receiver.url(), active: true })
    .then((r) => ({ webhook: r.webhook as webhooks.Webhook__Output, secret: r.secret }));

  // The receiver holds the first request for `held` until its caller goes away.
  const held = change(projectId, 'story.created', 'story:held', { n: 0 });
  let holding = false;
  receiver.respond = async (r, raw) => {
    if (r.id !== held.id || holding) return 200;
    holding = true;
    await new Promise((resolve) => raw.socket.once('close', resolve));
    return 200;
  };
  const behind = [1, 2, 3].map((n) => change(projectId, 'story.updated', 'story:held', { n }));
  const others = Array.from({ length: 10 }, (_, i) => change(projectId, 'task.created', `story:${i}`, { i }));
  await publish(held, ...behind, ...others);
  await waitFor(async () => (holding ? true : undefined), 15_000, 'the first replica to send the held event');

  // The second replica joins (the group rebalances), then the first goes, with its attempt in flight and, for the
  // burst published just before, possibly in the middle of ingesting.
  b = await startWebhooks(config);
  const burst = Array.from({ length: 20 }, (_, i) =>
    change(projectId, 'comment.created', `story:c${i % 5}`, { i }),
  );
  await publish(...burst);
  await a.stop();
  a = undefined;

  const all = [held, ...behind, ...others, ...burst];
  await receiver.waitForAll(
    all.map((e) => e.id),
    45_000,
  );
  const sentHeld = receiver.requests.filter((r) => r.id === held.id);
  expect(sentHeld.length).toBeGreaterThanOrEqual(2);
  expect(new Set(sentHeld.map((r) => r.body)).size).toBe(1); // the same event, byte for byte
  for (const r of receiver.requests) expect(verifies(secret, r)).toBe(true);
  // Nothing of the held subject went before the held event succeeded.
  const heldDone = receiver.requests.find((r) => r.id === held.id && r.status === 200)!;
  for (const e of behind) {
    expect(receiver.requests.find((r) => r.id === e.id)!.at).toBeGreaterThanOrEqual(heldDone.at);
  }
  // Every event was stored, and delivered, once per webhook: duplicates are only of attempts, never of deliveries.
  const log = await settledDeliveries(b.client, projectId, webhook.id);
  expect(log).toHaveLength(all.length);
  expect(new Set(log.map((d) => d.event_id)).size).toBe(all.length);
  expect(log.every((d) => d.status === 'succeeded')).toBe(true);
  const heldDelivery = log.find((d) => d.event_id === held.id)!;
  expect(heldDelivery.attempts.map((t) => [t.attempt, t.status])).toEqual([
    [2, 'succeeded'],
    [1, 'failed'],
  ]);
  expect(heldDelivery.attempts[1]!.error).toBe(INTERRUPTED);
});
