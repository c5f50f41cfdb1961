import type { webhooks } from '@flowboard/proto';
import type { DomainError } from '@flowboard/service-kit';
import {
  change,
  releaseSuite,
  db,
  ensureTopic,
  groupId,
  migrateSchema,
  newProjectId,
  publish,
  publishProjectDeleted,
  Receiver,
  settledDeliveries,
  startWebhooks,
  testConfig,
  verifies,
  waitFor,
  type StartedWebhooks,
  type WebhooksClient,
} from './harness';
import { USER_AGENT } from '../../src/app';

// Real PostgreSQL (schema `webhooks`), real Kafka (flowboard.resource-changed.v1), the real gRPC server on port 0,
// and a real HTTP receiver on loopback (allowed by WEBHOOK_ALLOWED_HOSTS). Retries are compressed: 100 ms doubling
// to 400 ms, giving up 6 s after the first attempt.

let service: StartedWebhooks;
let client: WebhooksClient;
const receiver = new Receiver();
const projects: number[] = [];

beforeAll(async () => {
  await migrateSchema();
  await migrateSchema(); // idempotent
  await ensureTopic();
  await receiver.start();
  service = await startWebhooks(testConfig(groupId()));
  client = service.client;
});

afterAll(async () => {
  await service?.stop();
  await receiver.stop();
  await releaseSuite(projects);
});

beforeEach(() => {
  receiver.respond = () => 200;
  receiver.headers = {};
});

const project = () => {
  const id = newProjectId();
  projects.push(id);
  return id;
};

async function createWebhook(
  projectId: number,
  overrides: Partial<webhooks.CreateWebhookRequest> = {},
): Promise<{ webhook: webhooks.Webhook__Output; secret: string }> {
  const res = await client.createWebhook({
    project_id: projectId,
    url: receiver.url(`/p/${projectId}`),
    active: true,
    ...overrides,
  });
  return { webhook: res.webhook!, secret: res.secret };
}

async function failure(promise: Promise<unknown>): Promise<DomainError> {
  try {
    await promise;
  } catch (err) {
    return err as DomainError;
  }
  throw new Error('expected the call to fail');
}

const deliveriesOf = async (projectId: number, webhookId: number, pageSize = 100) =>
  (await client.listDeliveries({ project_id: projectId, webhook_id: webhookId, page_size: pageSize }))
    .deliveries;

const forProject = (projectId: number) => receiver.requests.filter((r) => r.path === `/p/${projectId}`);

describe('delivery', () => {
  it('POSTs every event of the project, signed and verifiable, with the Standard Webhooks headers', async () => {
    const p = project();
    const { webhook, secret } = await createWebhook(p);
    const events = [
      change(p, 'story.created', 'story:1', { id: 1, text: 'First' }),
      change(p, 'task.created', 'story:1', { id: 9, storyId: 1 }),
      change(p, 'comment.created', 'story:2', { id: 4, text: 'Hi' }),
    ];
    const before = Math.floor(Date.now() / 1000);
    await publish(...events);
    await receiver.waitForAll(events.map((e) => e.id));

    for (const event of events) {
      const [got] = receiver.succeeded().get(event.id)!;
      expect(verifies(secret, got!)).toBe(true);
      expect(got!.headers['content-type']).toBe('application/json');
      expect(got!.headers['user-agent']).toBe(USER_AGENT);
      expect(Number(got!.timestamp)).toBeGreaterThanOrEqual(before);
      expect(Number(got!.timestamp)).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000));
      expect(JSON.parse(got!.body)).toEqual({
        id: event.id,
        type: event.data.type,
        timestamp: event.occurredAt,
        project: { id: p },
        actor: { id: 42 },
        data: event.data.resource,
      });
      // A wrong secret does not verify.
      expect(verifies('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', got!)).toBe(false);
    }

    const log = await settledDeliveries(client, p, webhook.id);
    expect(log.map((d) => d.event_id)).toEqual(events.map((e) => e.id).reverse()); // newest first
    for (const d of log) {
      expect(d).toMatchObject({ status: 'succeeded', attempt: 1, response_status_code: 200, error: '' });
      expect(d.next_attempt_at).toBe('');
      expect(d.attempts).toHaveLength(1);
      expect(d.attempts[0]).toMatchObject({ attempt: 1, status: 'succeeded', response_status_code: 200 });
      expect(d.attempted_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/);
    }
  });

  it('makes nothing twice for a redelivered Kafka message, and sends each webhook only its types', async () => {
    const p = project();
    const all = await createWebhook(p);
    const moves = await createWebhook(p, {
      url: receiver.url(`/p/${p}/moves`),
      event_types: ['story.moved'],
    });
    const paused = await createWebhook(p, { url: receiver.url(`/p/${p}/paused`), active: false });
    const other = change(project(), 'story.created', 'story:1'); // no webhook there
    const created = change(p, 'story.created', 'story:5');
    const moved = change(p, 'story.moved', 'story:5');
    await publish(created, other, moved, created, moved); // the outbox relay may publish twice
    await receiver.waitForAll([created.id, moved.id]);
    await waitFor(
      async () => (receiver.requests.some((r) => r.path === `/p/${p}/moves`) ? true : undefined),
      10_000,
      'the move to reach the second webhook',
    );
    // A later event proves the consumer is past the duplicates.
    const last = change(p, 'story.deleted', 'story:5');
    await publish(last);
    await receiver.waitForAll([last.id]);

    expect((await deliveriesOf(p, all.webhook.id)).map((d) => d.event_type)).toEqual([
      'story.deleted',
      'story.moved',
      'story.created',
    ]);
    expect((await deliveriesOf(p, moves.webhook.id)).map((d) => d.event_type)).toEqual(['story.moved']);
    expect(await deliveriesOf(p, paused.webhook.id)).toEqual([]);
    expect(forProject(p).map((r) => r.id)).toEqual([created.id, moved.id, last.id]);
    expect(receiver.requests.filter((r) => r.path === `/p/${p}/moves`).map((r) => r.id)).toEqual([moved.id]);
    expect(receiver.requests.some((r) => r.id === other.id)).toBe(false);
    const stored = await db.query('SELECT count(*)::int AS n FROM events WHERE id = $1', [other.id]);
    expect(stored.rows[0].n).toBe(0); // nobody subscribes: not even stored
  });

  it("sends a project's first webhook the next event, though earlier batches found the project without one", async () => {
    const p = project();
    const marker = project();
    await createWebhook(marker);
    // The consumer sees p without webhooks (the look-ahead skips its event), and is past it once the marker arrives.
    const before = change(p, 'story.created', 'story:1');
    const passed = change(marker, 'story.created', 'story:1');
    await publish(before, passed);
    await receiver.waitForAll([passed.id]);

    const { webhook } = await createWebhook(p);
    const after = change(p, 'story.moved', 'story:1');
    await publish(after);
    await receiver.waitForAll([after.id]);
    expect(forProject(p).map((r) => r.id)).toEqual([after.id]);
    expect((await deliveriesOf(p, webhook.id)).map((d) => d.event_id)).toEqual([after.id]);
  });

  it('delivers everything once the receiver is back after being down, nothing lost', async () => {
    const p = project();
    const down = await new Receiver().start();
    try {
      const { webhook, secret } = await client
        .createWebhook({
          project_id: p,
          url: down.url(),
          active: true,
        })
        .then((r) => ({ webhook: r.webhook!, secret: r.secret }));
      await down.stop(); // connection refused from here on
      const events = Array.from({ length: 12 }, (_, i) =>
        change(p, 'story.updated', `story:${i % 4}`, { i }),
      );
      await publish(...events);
      await waitFor(
        async () => {
          const log = await deliveriesOf(p, webhook.id);
          return log.length === 12 && log.some((d) => d.attempt >= 2) ? true : undefined;
        },
        15_000,
        'failed attempts while the receiver is down',
      );
      const whileDown = await deliveriesOf(p, webhook.id);
      const failedOnce = whileDown.find((d) => d.attempts.length > 0)!;
      expect(failedOnce.status).toBe('pending');
      expect(failedOnce.error).toMatch(/^connection refused by 127\.0\.0\.1:\d+$/);
      expect(failedOnce.response_status_code).toBe(0);
      expect(failedOnce.next_attempt_at).not.toBe('');

      // Then up again, on the same port; some attempts now answer 503 before it settles.
      await down.start(down.port);
      let flaky = 3;
      down.respond = () => (flaky-- > 0 ? 503 : 204);
      await down.waitForAll(events.map((e) => e.id));
      const log = await settledDeliveries(client, p, webhook.id);
      expect(log.every((d) => d.status === 'succeeded')).toBe(true);
      expect(log.filter((d) => d.attempt > 1).length).toBeGreaterThan(0);
      for (const r of down.requests) expect(verifies(secret, r)).toBe(true);
      // Retries carry the event's id, and each attempt its own timestamp.
      const retried = log.find((d) => d.attempt > 1)!;
      expect(new Set(down.requests.filter((r) => r.id === retried.event_id).map((r) => r.body)).size).toBe(1);
    } finally {
      await down.stop();
    }
  });

  it('keeps each subject in order under retries: nothing is attempted before the subject’s earlier events succeed', async () => {
    const p = project();
    const seen = new Set<string>();
    // Every event fails its first attempt, and 1 in 3 of the following ones.
    let n = 0;
    receiver.respond = (r) => {
      if (!r.path.startsWith(`/p/${p}`)) return 200;
      if (!seen.has(r.id)) {
        seen.add(r.id);
        return 500;
      }
      return ++n % 3 === 0 ? 502 : 200;
    };
    await createWebhook(p);
    const subjects = ['story:1', 'story:2', 'story:3'];
    const events = Array.from({ length: 15 }, (_, i) =>
      change(p, i % 5 === 0 ? 'story.created' : 'story.updated', subjects[i % 3]!, { seq: i }),
    );
    await publish(...events);
    await receiver.waitForAll(
      events.map((e) => e.id),
      45_000,
    );

    const requests = forProject(p);
    for (const subject of subjects) {
      const order = events.filter((e) => e.data.subject === subject).map((e) => e.id);
      // Every request for the k-th event of a subject came after the (k-1)-th one's success.
      for (let k = 1; k < order.length; k++) {
        const previousSuccess = requests.find((r) => r.id === order[k - 1] && r.status === 200)!;
        const firstTry = requests.find((r) => r.id === order[k])!;
        expect(firstTry.at).toBeGreaterThanOrEqual(previousSuccess.at);
      }
      const successes = requests.filter((r) => r.status === 200 && order.includes(r.id)).map((r) => r.id);
      expect(successes).toEqual(order);
    }
  });

  it('treats a redirect as a failure and never follows it', async () => {
    const p = project();
    const target = await new Receiver().start();
    try {
      receiver.respond = (r) => (r.path.startsWith(`/p/${p}`) ? 301 : 200);
      receiver.headers = { location: target.url('/elsewhere') };
      const { webhook } = await createWebhook(p);
      const event = change(p, 'story.created', 'story:1');
      await publish(event);
      await waitFor(
        async () => ((await deliveriesOf(p, webhook.id))[0]?.attempts.length ?? 0) >= 2 || undefined,
        10_000,
        'two attempts',
      );
      const [delivery] = await deliveriesOf(p, webhook.id);
      expect(delivery).toMatchObject({
        status: 'pending',
        response_status_code: 301,
        error: 'HTTP 301: redirects are not followed',
      });
      expect(target.requests).toEqual([]);
    } finally {
      await target.stop();
    }
  });
});

describe('auto-disable, redeliver and ping', () => {
  it('disables the webhook with the reason when a delivery exhausts its retries, and cancels the rest', async () => {
    const p = project();
    receiver.respond = (r) => (r.path.startsWith(`/p/${p}`) ? 500 : 200);
    const { webhook, secret } = await createWebhook(p);
    const first = change(p, 'story.created', 'story:1');
    const second = change(p, 'story.updated', 'story:1'); // waits behind the first
    await publish(first, second);
    // While the first is retried, the second waits behind it: pending, not scheduled.
    const [waiting] = await waitFor(
      async () => {
        const log = await deliveriesOf(p, webhook.id);
        return log.length === 2 && log[1]!.attempts.length >= 2 ? log : undefined;
      },
      10_000,
      'retries of the first event',
    );
    expect(waiting).toMatchObject({
      event_id: second.id,
      status: 'pending',
      attempt: 0,
      next_attempt_at: '',
    });

    const disabled = await waitFor(
      async () => {
        const w = (await client.getWebhook({ project_id: p, webhook_id: webhook.id })).webhook!;
        return w.active ? undefined : w;
      },
      20_000,
      'the webhook to be disabled',
    );
    expect(disabled.disabled_reason).toMatch(
      new RegExp(
        `^disabled after 6 s of failed deliveries to http://127\\.0\\.0\\.1:${receiver.port}: last error HTTP 500: receiver says 500$`,
      ),
    );
    const [secondDelivery, firstDelivery] = await deliveriesOf(p, webhook.id);
    expect(firstDelivery).toMatchObject({ event_id: first.id, status: 'failed', next_attempt_at: '' });
    expect(firstDelivery!.error).toMatch(/^gave up after \d+ attempts over 6 s; last error: HTTP 500/);
    expect(firstDelivery!.attempts.length).toBeGreaterThan(3);
    expect(secondDelivery).toMatchObject({
      event_id: second.id,
      status: 'failed',
      attempt: 0,
      error: 'cancelled: the webhook was disabled after another delivery gave up',
    });
    // Ordered: the second event was never attempted.
    expect(forProject(p).some((r) => r.id === second.id)).toBe(false);

    // A disabled webhook gets nothing new, and neither redelivery nor ping go to it. (The sentinel, published
    // after `later` in the same partition, shows when the consumer is past it.)
    const sentinel = await createWebhook(p, {
      url: receiver.url(`/sentinel/${p}`),
      event_types: ['story.tagged'],
    });
    const later = change(p, 'story.deleted', 'story:1');
    const tagged = change(p, 'story.tagged', 'story:9');
    await publish(later, tagged);
    await receiver.waitForAll([tagged.id]);
    expect(receiver.requests.filter((r) => r.path === `/sentinel/${p}`).map((r) => r.id)).toEqual([
      tagged.id,
    ]);
    expect(await deliveriesOf(p, sentinel.webhook.id)).toHaveLength(1);
    const redeliver = await failure(
      client.redeliverDelivery({ project_id: p, webhook_id: webhook.id, delivery_id: firstDelivery!.id }),
    );
    expect(redeliver).toMatchObject({
      kind: 'FailedPrecondition',
      message: expect.stringMatching(/not active/),
    });
    expect(await failure(client.pingWebhook({ project_id: p, webhook_id: webhook.id }))).toMatchObject({
      kind: 'FailedPrecondition',
    });

    // Re-activated: the reason is gone; a redelivery of the failed delivery goes out with the same webhook-id.
    receiver.respond = () => 200;
    const reactivated = await client.updateWebhook({
      project_id: p,
      webhook_id: webhook.id,
      update_mask: ['active'],
      active: true,
    });
    expect(reactivated.webhook).toMatchObject({ active: true, disabled_reason: '' });
    const again = await client.redeliverDelivery({
      project_id: p,
      webhook_id: webhook.id,
      delivery_id: firstDelivery!.id,
    });
    expect(again.delivery).toMatchObject({ event_id: first.id, status: 'pending', attempt: 0 });
    expect(again.delivery!.id).toBeGreaterThan(secondDelivery!.id);
    await waitFor(
      async () => forProject(p).find((r) => r.id === first.id && r.status === 200),
      10_000,
      'the redelivery',
    );
    const redelivered = forProject(p).filter((r) => r.id === first.id);
    expect(new Set(redelivered.map((r) => r.body)).size).toBe(1);
    expect(verifies(secret, redelivered.at(-1)!)).toBe(true);
    // The event that came while it was disabled was never queued.
    expect(forProject(p).some((r) => r.id === later.id)).toBe(false);
    const log = await settledDeliveries(client, p, webhook.id);
    expect(log.map((d) => [d.event_id, d.status])).toEqual([
      [first.id, 'succeeded'],
      [second.id, 'failed'],
      [first.id, 'failed'],
    ]);
    // A delivery that has not finished is not redelivered; one of another webhook or project is not found.
    expect(
      await failure(client.redeliverDelivery({ project_id: p, webhook_id: webhook.id, delivery_id: 1 })),
    ).toMatchObject({ kind: 'NotFound' });
    expect(
      await failure(
        client.redeliverDelivery({
          project_id: newProjectId(),
          webhook_id: webhook.id,
          delivery_id: again.delivery!.id,
        }),
      ),
    ).toMatchObject({ kind: 'NotFound', message: 'Webhook not found.' });
  });

  it('pings: a webhook.ping delivered like any other event, answering its delivery id', async () => {
    const p = project();
    const { webhook, secret } = await createWebhook(p, { event_types: ['story.moved'] });
    const { delivery_id } = await client.pingWebhook({ project_id: p, webhook_id: webhook.id });
    const got = await waitFor(async () => forProject(p).find((r) => r.status === 200), 10_000, 'the ping');
    expect(verifies(secret, got)).toBe(true);
    expect(JSON.parse(got.body)).toEqual({
      id: got.id,
      type: 'webhook.ping',
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      project: { id: p },
      actor: { id: 0 },
      data: { webhook: { id: webhook.id } },
    });
    const [delivery] = await settledDeliveries(client, p, webhook.id);
    expect(delivery).toMatchObject({
      id: delivery_id,
      event_id: got.id,
      event_type: 'webhook.ping',
      status: 'succeeded',
    });
    expect(
      await failure(client.pingWebhook({ project_id: newProjectId(), webhook_id: webhook.id })),
    ).toMatchObject({ kind: 'NotFound' });
  });
});

describe('the webhooks API', () => {
  it('creates, reads, lists, updates and deletes; the secret is answered once', async () => {
    const p = project();
    const { webhook, secret } = await createWebhook(p, {
      event_types: ['story.created', 'story.moved', 'story.created'],
      description: '  CI  ',
    });
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(webhook).toEqual({
      id: expect.any(Number),
      project_id: p,
      url: receiver.url(`/p/${p}`),
      event_types: ['story.created', 'story.moved'],
      active: true,
      description: 'CI',
      disabled_reason: '',
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/),
      updated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/),
    });
    const got = await client.getWebhook({ project_id: p, webhook_id: webhook.id });
    expect(got.webhook).toEqual(webhook);
    expect(JSON.stringify(got)).not.toContain(secret.slice(6));
    // Stored sealed: the secret's text is nowhere in the row.
    const row = await db.query('SELECT secret_sealed::text AS s FROM webhooks WHERE id = $1', [webhook.id]);
    expect(row.rows[0].s).not.toContain(Buffer.from(secret.slice(6), 'base64').toString('hex'));

    const second = await createWebhook(p, { active: false });
    expect((await client.listWebhooks({ project_id: p })).webhooks.map((w) => w.id)).toEqual([
      webhook.id,
      second.webhook.id,
    ]);

    const updated = await client.updateWebhook({
      project_id: p,
      webhook_id: webhook.id,
      update_mask: ['event_types', 'description'],
      event_types: [],
      description: 'all of them',
      url: 'ftp://ignored-because-not-in-the-mask',
      active: false,
    });
    expect(updated.webhook).toMatchObject({ event_types: [], description: 'all of them', active: true });
    expect(updated.webhook!.url).toBe(webhook.url);
    const moved = await client.updateWebhook({
      project_id: p,
      webhook_id: webhook.id,
      update_mask: ['url'],
      url: receiver.url('/moved'),
    });
    expect(moved.webhook!.url).toBe(receiver.url('/moved'));

    await client.deleteWebhook({ project_id: p, webhook_id: second.webhook.id });
    expect((await client.listWebhooks({ project_id: p })).webhooks.map((w) => w.id)).toEqual([webhook.id]);
    expect(
      await failure(client.deleteWebhook({ project_id: p, webhook_id: second.webhook.id })),
    ).toMatchObject({ kind: 'NotFound' });
  });

  it('answers NotFound for another project’s webhook, whatever the call', async () => {
    const p = project();
    const stranger = project();
    const { webhook } = await createWebhook(p);
    const ids = { project_id: stranger, webhook_id: webhook.id };
    for (const call of [
      client.getWebhook(ids),
      client.updateWebhook({ ...ids, update_mask: ['description'], description: 'x' }),
      client.deleteWebhook(ids),
      client.listDeliveries(ids),
      client.pingWebhook(ids),
      client.redeliverDelivery({ ...ids, delivery_id: 1 }),
    ]) {
      expect(await failure(call)).toMatchObject({ kind: 'NotFound', message: 'Webhook not found.' });
    }
    expect((await client.listWebhooks({ project_id: stranger })).webhooks).toEqual([]);
    expect((await client.getWebhook({ project_id: p, webhook_id: webhook.id })).webhook!.description).toBe(
      '',
    );
  });

  it('refuses invalid input with a clear message', async () => {
    const p = project();
    const cases: Array<[Partial<webhooks.CreateWebhookRequest>, RegExp]> = [
      [{ url: 'ftp://127.0.0.1/x' }, /must use http or https, not ftp/],
      [{ url: 'not a url' }, /not a valid absolute URL/],
      [{ url: 'http://user:pw@127.0.0.1/' }, /must not contain credentials/],
      [{ event_types: ['story.created', 'story.exploded'] }, /Unknown event type: story\.exploded/],
      [{ description: 'x'.repeat(501) }, /longer than 500/],
      [{ project_id: 0 }, /project_id is required/],
    ];
    for (const [overrides, message] of cases) {
      expect(await failure(createWebhook(p, overrides))).toMatchObject({
        kind: 'InvalidArgument',
        message: expect.stringMatching(message),
      });
    }
    const { webhook } = await createWebhook(p);
    expect(
      await failure(client.updateWebhook({ project_id: p, webhook_id: webhook.id, update_mask: ['secret'] })),
    ).toMatchObject({ kind: 'InvalidArgument', message: expect.stringMatching(/Cannot update 'secret'/) });
    expect(
      await failure(client.listDeliveries({ project_id: p, webhook_id: webhook.id, page_size: 101 })),
    ).toMatchObject({ kind: 'InvalidArgument', problem: 'invalid-parameter' });
  });

  it('pages the delivery log, newest first', async () => {
    const p = project();
    const { webhook } = await createWebhook(p);
    const events = Array.from({ length: 5 }, (_, i) => change(p, 'task.updated', `story:${i}`));
    await publish(...events);
    await receiver.waitForAll(events.map((e) => e.id));
    const page = (n: number) =>
      client.listDeliveries({ project_id: p, webhook_id: webhook.id, page: n, page_size: 2 });
    const pages = await Promise.all([page(1), page(2), page(3), page(4)]);
    expect(pages.map((r) => r.total_items)).toEqual([5, 5, 5, 5]);
    expect(pages.flatMap((r) => r.deliveries.map((d) => d.event_id))).toEqual(
      events.map((e) => e.id).reverse(),
    );
    expect(pages[3]!.deliveries).toEqual([]);
  });

  it('removes a deleted project’s webhooks (membership.project-deleted.v1)', async () => {
    const p = project();
    await createWebhook(p);
    await publishProjectDeleted(p);
    await waitFor(
      async () => ((await client.listWebhooks({ project_id: p })).webhooks.length === 0 ? true : undefined),
      20_000,
      'the project’s webhooks to go',
    );
  });
});
