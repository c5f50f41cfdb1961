import type { DomainError } from '@flowboard/service-kit';
import { parseSealingKey } from '../../src/domain/secret-box';
import { generateSecret } from '../../src/domain/secret';
import { webhookRepository } from '../../src/db/webhook-repository';
import {
  change,
  releaseSuite,
  db,
  ensureTopic,
  groupId,
  migrateSchema,
  newProjectId,
  publish,
  Receiver,
  startWebhooks,
  TEST_SEALING_KEY,
  testConfig,
  waitFor,
  type StartedWebhooks,
} from './harness';

// The service as deployed: no allow-list. Loopback and private targets are refused when a webhook is created or
// updated, and again at every attempt (for webhooks whose host resolved elsewhere when they were saved).

const receiver = new Receiver();
const projectId = newProjectId();
let service: StartedWebhooks;

beforeAll(async () => {
  await migrateSchema();
  await ensureTopic();
  await receiver.start();
  service = await startWebhooks(testConfig(groupId(), { WEBHOOK_ALLOWED_HOSTS: '' }));
});

afterAll(async () => {
  await service?.stop();
  await receiver.stop();
  await releaseSuite([projectId]);
});

async function failure(promise: Promise<unknown>): Promise<DomainError> {
  try {
    await promise;
  } catch (err) {
    return err as DomainError;
  }
  throw new Error('expected the call to fail');
}

it.each([
  ['http://127.0.0.1:%PORT%/hook', '127.0.0.1 is a loopback address'],
  ['http://localhost:%PORT%/hook', 'is a loopback address'],
  ['http://[::1]:%PORT%/hook', '::1 is a loopback address'],
  ['http://[::ffff:127.0.0.1]:%PORT%/hook', '::ffff:7f00:1 is a loopback address'],
  ['http://2130706433:%PORT%/hook', '127.0.0.1 is a loopback address'],
  ['http://0.0.0.0:%PORT%/hook', '0.0.0.0 is an unspecified address'],
  ['http://10.0.0.1/hook', '10.0.0.1 is a private address'],
  ['http://169.254.169.254/latest/meta-data/', '169.254.169.254 is a link-local address'],
  ['http://[fd00::1]/hook', 'fd00::1 is a unique-local address'],
])('refuses %s at create (400 with the reason)', async (url, reason) => {
  const error = await failure(
    service.client.createWebhook({
      project_id: projectId,
      url: url.replace('%PORT%', String(receiver.port)),
      active: true,
    }),
  );
  expect(error).toMatchObject({ kind: 'InvalidArgument' });
  expect(error.message).toMatch(/^The webhook URL is not allowed: /);
  expect(error.message).toContain(reason);
  expect(error.message).toMatch(/which webhooks may not reach\.$/);
});

it('refuses a loopback URL at update', async () => {
  // Saved directly (as if its host had resolved to a public address then), inactive so nothing is sent.
  const webhooks = webhookRepository(db, parseSealingKey(TEST_SEALING_KEY));
  const saved = await webhooks.create(
    {
      projectId,
      url: 'http://127.0.0.1:9/',
      eventTypes: [],
      active: false,
      description: '',
      secret: generateSecret(),
    },
    100,
  );
  const error = await failure(
    service.client.updateWebhook({
      project_id: projectId,
      webhook_id: saved.id,
      update_mask: ['url'],
      url: `http://[::1]:${receiver.port}/`,
    }),
  );
  expect(error).toMatchObject({ kind: 'InvalidArgument', message: expect.stringContaining('loopback') });
});

it('refuses loopback targets again at delivery, never connecting to them', async () => {
  const webhooks = webhookRepository(db, parseSealingKey(TEST_SEALING_KEY));
  const secret = generateSecret();
  const byAddress = await webhooks.create(
    {
      projectId,
      url: receiver.url('/a'),
      eventTypes: ['story.created'],
      active: true,
      description: '',
      secret,
    },
    100,
  );
  const byName = await webhooks.create(
    {
      projectId,
      url: `http://localhost:${receiver.port}/b`,
      eventTypes: ['story.created'],
      active: true,
      description: '',
      secret,
    },
    100,
  );
  await publish(change(projectId, 'story.created', 'story:1'));
  for (const webhook of [byAddress, byName]) {
    const [delivery] = await waitFor(
      async () => {
        const { deliveries } = await service.client.listDeliveries({
          project_id: projectId,
          webhook_id: webhook.id,
        });
        return deliveries[0]?.attempts.length ? deliveries : undefined;
      },
      15_000,
      'a refused attempt',
    );
    expect(delivery).toMatchObject({ status: 'pending', response_status_code: 0 });
    expect(delivery!.error).toMatch(
      /^refused: (127\.0\.0\.1|::1) is a loopback address, which webhooks may not reach$/,
    );
  }
  expect(receiver.requests).toEqual([]);
});
