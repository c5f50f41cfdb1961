import type { webhooks } from '@flowboard/proto';
import type { DomainError } from '@flowboard/service-kit';
import {
  db,
  ensureTopic,
  groupId,
  migrateSchema,
  newProjectId,
  Receiver,
  releaseSuite,
  startWebhooks,
  testConfig,
  type StartedWebhooks,
  type WebhooksClient,
} from './harness';

// ListDeliveries by keyset (README "Sync: cursors and updatedSince"), on real PostgreSQL through the real gRPC
// server. Deliveries are made by pings (no Kafka ingestion needed), delivered to a loopback receiver that answers
// 200, so no webhook gives up and gets disabled meanwhile.

let service: StartedWebhooks;
let client: WebhooksClient;
const receiver = new Receiver();
const projects: number[] = [];

beforeAll(async () => {
  await migrateSchema();
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

const project = () => {
  const id = newProjectId();
  projects.push(id);
  return id;
};

async function createWebhook(projectId: number): Promise<webhooks.Webhook__Output> {
  const res = await client.createWebhook({ project_id: projectId, url: receiver.url(), active: true });
  return res.webhook!;
}

/** `n` pings, one after another (so their ids ascend): the ids of their deliveries. */
async function ping(projectId: number, webhookId: number, n = 1): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < n; i++) {
    ids.push((await client.pingWebhook({ project_id: projectId, webhook_id: webhookId })).delivery_id);
  }
  return ids;
}

async function failure(promise: Promise<unknown>): Promise<DomainError> {
  try {
    await promise;
  } catch (err) {
    return err as DomainError;
  }
  throw new Error('expected the call to fail');
}

const afterId = (projectId: number, webhookId: number, after: number, pageSize: number) =>
  client.listDeliveries({
    project_id: projectId,
    webhook_id: webhookId,
    page_size: pageSize,
    keyset: { after_id: after },
  });

const idsOf = (res: webhooks.ListDeliveriesResponse__Output) => res.deliveries.map((d) => d.id);

describe('ListDeliveries by keyset', () => {
  it('answers the webhook’s deliveries oldest first after after_id, page_size of them, and whether more follow', async () => {
    const p = project();
    const webhook = await createWebhook(p);
    const other = await createWebhook(p);
    // Interleaved with another webhook's deliveries of the same project, which the keyset must skip.
    const ids = [...(await ping(p, webhook.id, 2)), ...(await ping(p, other.id, 2))];
    ids.push(...(await ping(p, webhook.id, 3)));
    const [mine, theirs] = [[ids[0]!, ids[1]!, ...ids.slice(4)], ids.slice(2, 4)];

    const first = await afterId(p, webhook.id, 0, 2);
    expect(idsOf(first)).toEqual(mine.slice(0, 2));
    expect(first.keyset).toEqual({ more: true });
    expect(first.total_items).toBe(5);
    // Each delivery as the ordinary page shows it, its event and attempts included.
    expect(first.deliveries[0]).toMatchObject({
      id: mine[0],
      webhook_id: webhook.id,
      event_type: 'webhook.ping',
    });

    const second = await afterId(p, webhook.id, mine[1]!, 2);
    expect(idsOf(second)).toEqual(mine.slice(2, 4));
    expect(second.keyset).toEqual({ more: true });
    // The last page: one delivery, nothing after it.
    const last = await afterId(p, webhook.id, mine[3]!, 2);
    expect(idsOf(last)).toEqual([mine[4]]);
    expect(last.keyset).toEqual({ more: false });
    // A page that ends exactly at the last delivery: the extra row fetched is what says there is no more.
    const exact = await afterId(p, webhook.id, mine[2]!, 2);
    expect(idsOf(exact)).toEqual(mine.slice(3));
    expect(exact.keyset).toEqual({ more: false });
    // After the last one: empty, and still answered as a keyset page (the gateway tells an older release by it).
    const empty = await afterId(p, webhook.id, mine[4]!, 2);
    expect(empty.deliveries).toEqual([]);
    expect(empty.keyset).toEqual({ more: false });
    expect(empty.total_items).toBe(5);
    // An after_id between two of its ids (here: another webhook's delivery) works as well.
    expect(idsOf(await afterId(p, webhook.id, theirs[0]!, 100))).toEqual(mine.slice(2));
    // The other webhook's own walk holds only its deliveries.
    const others = await afterId(p, other.id, 0, 100);
    expect(idsOf(others)).toEqual(theirs);
    expect(others).toMatchObject({ total_items: 2, keyset: { more: false } });
  });

  it('ignores `page`, defaults page_size to 20, and checks it and after_id', async () => {
    const p = project();
    const webhook = await createWebhook(p);
    const ids = await ping(p, webhook.id, 21);

    const byDefault = await client.listDeliveries({ project_id: p, webhook_id: webhook.id, keyset: {} });
    expect(idsOf(byDefault)).toEqual(ids.slice(0, 20));
    expect(byDefault).toMatchObject({ total_items: 21, keyset: { more: true } });
    const paged = await client.listDeliveries({
      project_id: p,
      webhook_id: webhook.id,
      page: 3,
      page_size: 5,
      keyset: { after_id: ids[9]! },
    });
    expect(idsOf(paged)).toEqual(ids.slice(10, 15));

    // Without a keyset: the ordinary page, newest first, and no keyset answer.
    const ordinary = await client.listDeliveries({
      project_id: p,
      webhook_id: webhook.id,
      page: 2,
      page_size: 5,
    });
    expect(idsOf(ordinary)).toEqual(ids.slice(11, 16).reverse());
    expect(ordinary.keyset).toBeNull();
    expect(ordinary.total_items).toBe(21);

    expect(await failure(afterId(p, webhook.id, 0, 101))).toMatchObject({
      kind: 'InvalidArgument',
      problem: 'invalid-parameter',
    });
    expect(await failure(afterId(p, webhook.id, -1, 10))).toMatchObject({
      kind: 'InvalidArgument',
      problem: 'invalid-parameter',
      message: "Invalid cursor: 'after_id'.",
    });
  });

  it('answers NotFound for another project’s webhook', async () => {
    const p = project();
    const webhook = await createWebhook(p);
    await ping(p, webhook.id);
    expect(await failure(afterId(project(), webhook.id, 0, 10))).toMatchObject({
      kind: 'NotFound',
      message: 'Webhook not found.',
    });
  });

  it('stays exact while deliveries are added and removed between pages', async () => {
    const p = project();
    const webhook = await createWebhook(p);
    const [d1, d2, d3, d4, d5, d6] = await ping(p, webhook.id, 6);
    const remove = (id: number) => db.query('DELETE FROM deliveries WHERE id = $1', [id]);

    const walked: number[] = [];
    const page1 = await afterId(p, webhook.id, 0, 2);
    walked.push(...idsOf(page1));
    // Between pages: one seen delivery and one not yet seen go, a new one comes (a later id: at the end).
    await remove(d1!);
    await remove(d3!);
    const [d7] = await ping(p, webhook.id);
    const page2 = await afterId(p, webhook.id, walked.at(-1)!, 2);
    walked.push(...idsOf(page2));
    expect(page2.total_items).toBe(5); // the log as it is now
    await remove(d6!);
    const [d8] = await ping(p, webhook.id);
    let page = page2;
    while (page.keyset!.more) {
      page = await afterId(p, webhook.id, walked.at(-1)!, 2);
      walked.push(...idsOf(page));
    }

    // Every delivery that existed for the whole walk exactly once, in id order; nothing removed before its page.
    expect(idsOf(page1)).toEqual([d1, d2]);
    expect(walked).toEqual([d1, d2, d4, d5, d7, d8]);
    expect(page.keyset).toEqual({ more: false });
  });
});
