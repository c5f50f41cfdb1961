import { startTcpProxy, type TcpProxy } from '@flowboard/testing';
import {
  change,
  releaseSuite,
  ensureTopic,
  env,
  groupId,
  migrateSchema,
  newProjectId,
  publish,
  Receiver,
  settledDeliveries,
  startWebhooks,
  testConfig,
  type StartedWebhooks,
} from './harness';

// PostgreSQL taken away from this instance only (a relay in front of the real server, cut and restored): its gRPC
// calls answer UNAVAILABLE, ingestion and the dispatcher wait, and every event published meanwhile is delivered once
// the database is back.
let relay: TcpProxy;
let service: StartedWebhooks;
const receiver = new Receiver();
const projectId = newProjectId();

beforeAll(async () => {
  await migrateSchema();
  await ensureTopic();
  await receiver.start();
  relay = await startTcpProxy(env.WEBHOOKS_DATABASE_URL);
  service = await startWebhooks(
    testConfig(groupId(), { DATABASE_URL: relay.through(env.WEBHOOKS_DATABASE_URL) }),
  );
});

afterAll(async () => {
  await service?.stop();
  await relay?.close();
  await receiver.stop();
  await releaseSuite([projectId]);
});

it('answers UNAVAILABLE while its database is unreachable, and delivers what came meanwhile once it is back', async () => {
  const { webhook } = await service.client.createWebhook({
    project_id: projectId,
    url: receiver.url(),
    active: true,
  });
  const before = change(projectId, 'story.created', 'story:1');
  await publish(before);
  await receiver.waitForAll([before.id]);
  // Its success recorded before the outage: a delivery whose answer could not be recorded is sent again (at least
  // once), which is not what this test is about. (Cutting right after the receiver saw it lost that race under load.)
  expect((await settledDeliveries(service.client, projectId, webhook!.id)).map((d) => d.status)).toEqual([
    'succeeded',
  ]);

  await relay.cut();
  const during = [1, 2, 3].map((n) => change(projectId, 'story.updated', 'story:1', { n }));
  try {
    await publish(...during);
    const failed = await service.client.listWebhooks({ project_id: projectId }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(failed).toMatchObject({ kind: 'Unavailable' });
    await new Promise((resolve) => setTimeout(resolve, 3_000)); // the consumer and dispatcher meet the outage
  } finally {
    await relay.restore();
  }

  await receiver.waitForAll(
    during.map((e) => e.id),
    45_000,
  );
  const ids = receiver.requests.filter((r) => r.status === 200).map((r) => r.id);
  expect(ids).toEqual([before.id, ...during.map((e) => e.id)]); // in order, each once
  const deliveries = await settledDeliveries(service.client, projectId, webhook!.id);
  expect(deliveries.map((d) => d.status)).toEqual(['succeeded', 'succeeded', 'succeeded', 'succeeded']);
});
