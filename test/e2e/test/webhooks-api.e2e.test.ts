import { signatureOk, uniqueSuffix, waitFor, WebhookReceiver } from '@flowboard/testing';
import {
  accessLadder,
  accessMatrix,
  api,
  childNames,
  createProject,
  signUp,
  sorted,
  XML_HEADERS,
  type SignedUp,
} from './support';

/**
 * `P/webhooks...` (a flowboard addition) through the gateway against the real webhooks service: CRUD in JSON and
 * XML, the secret shown once, Admin only, the service's refusals as 400s, and a ping and a redelivery received by a
 * loopback HTTP receiver, signed as Standard Webhooks says. The stack's webhooks service must allow 127.0.0.1
 * (`WEBHOOK_ALLOWED_HOSTS`): receivers are otherwise refused as loopback addresses.
 */
jest.setTimeout(90_000);

let receiver: WebhookReceiver;
let receiverUrl: string;

let owner: SignedUp;
let project: { id: number };
const P = () => `/api/v1/projects/${project.id}`;
const WEBHOOK_KEYS = ['id', 'url', 'eventTypes', 'active', 'description', 'createTime', 'updateTime'];

beforeAll(async () => {
  receiver = await WebhookReceiver.start();
  receiverUrl = receiver.url('/hooks/flowboard?token=t0');
  owner = await signUp('wh-owner');
  project = await createProject(owner.key);
});
afterAll(async () => {
  await receiver?.close();
});

async function createWebhook(body: Record<string, unknown>, projectId = project.id) {
  const res = await api(`/api/v1/projects/${projectId}/webhooks`, { method: 'POST', key: owner.key, body });
  if (res.status !== 200) throw new Error(`webhook create failed: ${res.status} ${res.text}`);
  return res.json as { id: number; secret: string } & Record<string, unknown>;
}

const receivedFor = (eventId: string) => receiver.withId(eventId);

describe('webhooks', () => {
  it('creates (secret shown once), reads, lists, updates and deletes in JSON', async () => {
    const created = await createWebhook({
      url: receiverUrl,
      eventTypes: ['story.created', 'story.moved'],
      description: 'CI bridge',
    });
    expect(Object.keys(created)).toEqual([...WEBHOOK_KEYS, 'secret']);
    expect(created).toMatchObject({
      url: receiverUrl,
      eventTypes: ['story.created', 'story.moved'],
      active: true,
      description: 'CI bridge',
    });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]+={0,2}$/);
    const W = `${P()}/webhooks/${created.id}`;

    const one = await api(W, { key: owner.key });
    expect(one.status).toBe(200);
    expect(Object.keys(one.json)).toEqual(WEBHOOK_KEYS);
    expect(one.text).not.toContain(created.secret);
    const list = await api(`${P()}/webhooks`, { key: owner.key });
    expect(list.json).toMatchObject({ page: 1, pageSize: 100, totalPages: 1, totalItems: 1 });
    expect(list.json.items).toEqual([one.json]);
    expect(list.text).not.toContain('whsec_');

    // Partial: only what is sent changes.
    const renamed = await api(W, { method: 'PUT', key: owner.key, body: { description: 'renamed' } });
    expect(renamed.status).toBe(200);
    expect(renamed.json).toMatchObject({
      description: 'renamed',
      eventTypes: ['story.created', 'story.moved'],
    });
    const all = await api(W, { method: 'PUT', key: owner.key, body: { eventTypes: [], active: false } });
    expect(all.json).toMatchObject({ eventTypes: [], active: false, description: 'renamed' });
    expect(all.json).not.toHaveProperty('disabledReason'); // deactivated by hand, not by the service

    const del = await api(W, { method: 'DELETE', key: owner.key });
    expect(del.status).toBe(200);
    expect(del.text).toBe('');
    expect(del.headers.get('content-type')).toBeNull();
    expect((await api(W, { key: owner.key })).status).toBe(404);
    expect((await api(W, { method: 'DELETE', key: owner.key })).status).toBe(404);
  });

  it('speaks XML: <webhook> with repeated <eventType>, alphabetical children, <webhooks> pages', async () => {
    const res = await api(`${P()}/webhooks.xml`, {
      method: 'POST',
      key: owner.key,
      headers: { 'Content-Type': 'application/xml' },
      body:
        `<webhook><url>${receiverUrl.replace(/&/g, '&amp;')}</url><description>From XML</description>` +
        '<eventTypes><eventType>task.created</eventType><eventType>comment.created</eventType></eventTypes>' +
        '</webhook>',
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/xml; charset=utf-8');
    expect(childNames(res.text, 'webhook')).toEqual(sorted([...WEBHOOK_KEYS, 'secret']));
    expect(res.text).toContain(
      '<eventTypes><eventType>task.created</eventType><eventType>comment.created</eventType></eventTypes>',
    );
    const id = Number(/<id>(\d+)<\/id>/.exec(res.text)?.[1]);

    const one = await api(`${P()}/webhooks/${id}`, { key: owner.key, headers: XML_HEADERS });
    expect(childNames(one.text, 'webhook')).toEqual(sorted(WEBHOOK_KEYS));
    expect(one.text).not.toContain('<secret>');
    const updated = await api(`${P()}/webhooks/${id}.xml`, {
      method: 'PUT',
      key: owner.key,
      headers: { 'Content-Type': 'application/xml' },
      body: '<webhook><eventTypes /><description /></webhook>',
    });
    expect(updated.status).toBe(200);
    expect(updated.text).toContain('<description /><eventTypes /><id>');
    const page = await api(`${P()}/webhooks`, { key: owner.key, headers: XML_HEADERS });
    expect(childNames(page.text, 'webhooks')).toEqual(
      sorted(['page', 'pageSize', 'totalPages', 'totalItems', 'items']),
    );
    expect(page.text).toContain('<items><webhook>');
    expect((await api(`${P()}/webhooks/${id}`, { method: 'DELETE', key: owner.key })).status).toBe(200);
  });

  it('refuses bad input with 400 problem details naming what is wrong', async () => {
    const refused = async (body: unknown, headers: Record<string, string> = {}) => {
      const res = await api(`${P()}/webhooks`, { method: 'POST', key: owner.key, body, headers });
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
      expect(res.json).toMatchObject({ status: 400, requestId: res.headers.get('x-request-id') });
      return res.json as { type: string; detail: string };
    };
    expect(await refused({ eventTypes: ['story.created'] })).toMatchObject({
      type: 'urn:flowboard:problem:invalid-field',
      detail: "Field 'url' is required.",
    });
    expect((await refused({ url: 'ftp://files.example.com/hook' })).detail).toMatch(/http or https/);
    expect((await refused({ url: 'http://10.1.2.3/hook' })).detail).toMatch(
      /not allowed: 10\.1\.2\.3 is a private/,
    );
    expect((await refused({ url: 'http://gob:secret@127.0.0.1/hook' })).detail).toMatch(/credentials/);
    expect((await refused({ url: receiverUrl, eventTypes: ['story.exploded'] })).detail).toMatch(
      /Unknown event type: story\.exploded\. Known: story\.created/,
    );
    expect((await refused({ url: receiverUrl, eventTypes: 'story.created' })).detail).toContain(
      "'eventTypes'",
    );
    expect((await refused({ url: receiverUrl, active: 'sometimes' })).detail).toContain("'active'");
    const xml = await api(`${P()}/webhooks`, {
      method: 'POST',
      key: owner.key,
      headers: { ...XML_HEADERS, 'Content-Type': 'application/json' },
      body: JSON.stringify({ url: 'mailto:gob@bluth.com' }),
    });
    expect(xml.status).toBe(400);
    expect(xml.text).toContain('<type>urn:flowboard:problem:invalid-field</type>');
    expect((await api(`${P()}/webhooks?where=url:x`, { key: owner.key })).status).toBe(400);
    expect((await api(`${P()}/webhooks/999999999/deliveries`, { key: owner.key })).status).toBe(404);
    expect(
      (await api(`${P()}/webhooks/999999999`, { method: 'PUT', key: owner.key, body: { active: true } }))
        .status,
    ).toBe(404);
  });

  it('refuses the webhook after the per-project limit (400, invalid-state)', async () => {
    const crowded = await createProject(owner.key);
    let limit = 0;
    for (;;) {
      const res = await api(`/api/v1/projects/${crowded.id}/webhooks`, {
        method: 'POST',
        key: owner.key,
        body: { url: `${receiverUrl}&n=${limit}`, active: false },
      });
      if (res.status !== 200) {
        expect(res.status).toBe(400);
        expect(res.json).toMatchObject({ type: 'urn:flowboard:problem:invalid-state' });
        expect(res.json.detail).toMatch(/at most \d+ webhooks/);
        break;
      }
      limit++;
      if (limit > 200) throw new Error('no webhook limit');
    }
    expect(limit).toBeGreaterThan(0);
    expect((await api(`/api/v1/projects/${crowded.id}/webhooks`, { key: owner.key })).json.totalItems).toBe(
      limit,
    );
  });

  it('access matrix: Admin for every operation; below it 403, a non-member 404', async () => {
    const hook = await createWebhook({ url: receiverUrl, active: false });
    const W = `${P()}/webhooks/${hook.id}`;
    const callers = await accessLadder(owner, project.id);
    const matrix = await accessMatrix(callers, async (key) => [
      (await api(`${P()}/webhooks`, { key })).status,
      // An empty body: 400 shows the access check passed without creating anything.
      (await api(`${P()}/webhooks`, { key, method: 'POST', body: {} })).status,
      (await api(W, { key })).status,
      (await api(W, { key, method: 'PUT', body: { description: 'x' } })).status,
      (await api(`${P()}/webhooks/999999999`, { key, method: 'DELETE' })).status,
      (await api(`${W}/deliveries`, { key })).status,
      // Inactive: 400 shows the access check passed without sending anything.
      (await api(`${W}/ping`, { key, method: 'POST' })).status,
      (await api(`${W}/deliveries/999999999/redeliver`, { key, method: 'POST' })).status,
    ]);
    expect(matrix).toEqual({
      anonymous: [401, 401, 401, 401, 401, 401, 401, 401],
      stranger: [404, 404, 404, 404, 404, 404, 404, 404],
      none: [403, 403, 403, 403, 403, 403, 403, 403],
      read: [403, 403, 403, 403, 403, 403, 403, 403],
      readwrite: [403, 403, 403, 403, 403, 403, 403, 403],
      admin: [200, 400, 200, 200, 404, 200, 400, 404],
    });
    expect((await api(W, { method: 'DELETE', key: owner.key })).status).toBe(200);
  });
});

describe('deliveries', () => {
  it('a ping reaches the receiver signed with the secret, is logged, and can be redelivered', async () => {
    const hook = await createWebhook({ url: receiverUrl, eventTypes: ['story.created'] });
    const W = `${P()}/webhooks/${hook.id}`;
    const ping = await api(`${W}/ping`, { method: 'POST', key: owner.key });
    expect(ping.status).toBe(200);
    expect(Object.keys(ping.json)).toEqual(['id']);

    // Logged as succeeded once the receiver's 204 is recorded.
    const logged = await waitFor(
      async () => {
        const page = await api(`${W}/deliveries`, { key: owner.key });
        const delivery = page.json.items.find((d: { id: number }) => d.id === ping.json.id);
        return delivery?.status === 'succeeded' ? delivery : undefined;
      },
      30_000,
      'the ping to be delivered',
    );
    expect(logged).toMatchObject({
      eventType: 'webhook.ping',
      attempt: 1,
      status: 'succeeded',
      responseStatusCode: 204,
      attempts: [{ attempt: 1, status: 'succeeded', responseStatusCode: 204 }],
    });
    expect(logged).not.toHaveProperty('error');
    expect(logged).not.toHaveProperty('nextAttemptAt');
    expect(logged.latencyMs).toEqual(expect.any(Number));

    const [request] = receivedFor(logged.eventId);
    expect(request).toBeDefined();
    expect(request!.headers['content-type']).toBe('application/json');
    expect(request!.headers['webhook-timestamp']).toMatch(/^\d+$/);
    expect(Math.abs(Number(request!.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(120);
    expect(signatureOk(hook.secret, request!)).toBe(true);
    expect(signatureOk(`whsec_${Buffer.alloc(32).toString('base64')}`, request!)).toBe(false);
    expect(JSON.parse(request!.body)).toMatchObject({
      id: logged.eventId,
      type: 'webhook.ping',
      project: { id: project.id },
    });

    const xml = await api(`${W}/deliveries`, { key: owner.key, headers: XML_HEADERS });
    expect(childNames(xml.text, 'deliveries')).toEqual(
      sorted(['page', 'pageSize', 'totalPages', 'totalItems', 'items']),
    );
    expect(xml.text).toContain('<items><delivery><attempt>1</attempt><attemptedAt>');
    expect(xml.text).toContain('<attempts><attempt><attempt>1</attempt>');

    // A redelivery: a new delivery of the same event, the same webhook-id and body, signed afresh.
    const again = await api(`${W}/deliveries/${ping.json.id}/redeliver`, { method: 'POST', key: owner.key });
    expect(again.status).toBe(200);
    expect(again.json).toMatchObject({ eventId: logged.eventId, eventType: 'webhook.ping' });
    expect(again.json.id).not.toBe(ping.json.id);
    const copies = await waitFor(
      async () => (receivedFor(logged.eventId).length >= 2 ? receivedFor(logged.eventId) : undefined),
      30_000,
      'the redelivery to arrive',
    );
    expect(copies[1]!.body).toBe(copies[0]!.body);
    expect(signatureOk(hook.secret, copies[1]!)).toBe(true);
    const page = await api(`${W}/deliveries?pageSize=1`, { key: owner.key });
    expect(page.json).toMatchObject({ page: 1, pageSize: 1, totalItems: 2, totalPages: 2 });
    expect(page.json.items[0].id).toBe(again.json.id); // newest first

    // Inactive: nothing is sent, so ping and redelivery are refused until it is active again.
    await api(W, { method: 'PUT', key: owner.key, body: { active: false } });
    const refused = await api(`${W}/ping`, { method: 'POST', key: owner.key });
    expect(refused.status).toBe(400);
    expect(refused.json).toMatchObject({ type: 'urn:flowboard:problem:invalid-state' });
    const notAgain = await api(`${W}/deliveries/${ping.json.id}/redeliver`, {
      method: 'POST',
      key: owner.key,
    });
    expect(notAgain.status).toBe(400);
    await api(W, { method: 'PUT', key: owner.key, body: { active: true } });
    expect((await api(`${W}/ping.xml`, { method: 'POST', key: owner.key })).text).toMatch(
      /<delivery><id>\d+<\/id><\/delivery>$/,
    );
  });

  it('Idempotency-Key: a retried create makes one webhook and replays the same secret', async () => {
    const headers = { 'Idempotency-Key': `"wh-${uniqueSuffix()}"` };
    const body = { url: receiverUrl, active: false, description: 'retried' };
    const first = await api(`${P()}/webhooks`, { method: 'POST', key: owner.key, body, headers });
    const retry = await api(`${P()}/webhooks`, { method: 'POST', key: owner.key, body, headers });
    expect(first.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.json).toEqual(first.json);
    const list = await api(`${P()}/webhooks`, { key: owner.key });
    expect(list.json.items.filter((w: { description: string }) => w.description === 'retried')).toHaveLength(
      1,
    );
  });
});
