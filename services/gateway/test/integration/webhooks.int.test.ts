import { apiClient } from '@flowboard/testing';
import { startHarness, type Harness } from './support/boot';

/**
 * `P/webhooks...` against a fake webhooks service: what the gateway adds (access, body shapes, the update mask,
 * paging, both formats, error mapping, Idempotency-Key, readiness). The service's own rules (SSRF, signatures,
 * retries) are tested in services/webhooks and end to end (test/e2e/test/webhooks-api.e2e.test.ts).
 */
let h: Harness;
let api: ReturnType<typeof apiClient>;
let owner: { id: number; key: string };
let writer: { key: string };
let stranger: { key: string };
let P: string;

beforeAll(async () => {
  h = await startHarness();
  api = apiClient(h.baseUrl);
  const o = h.membership.addUser('Gob Bluth');
  const w = h.membership.addUser('Tobias Funke');
  const s = h.membership.addUser('Buster Bluth');
  const project = h.membership.addProject(o.user, 'Sudden Valley');
  h.membership.grant(project, w.user, 'ACCESS_READWRITE');
  owner = { id: o.user.id, key: o.key };
  writer = { key: w.key };
  stranger = { key: s.key };
  P = `/api/v1/projects/${project.project.id}`;
});
afterAll(() => h.stop());

const create = (body: unknown, headers: Record<string, string> = {}) =>
  api(`${P}/webhooks`, { method: 'POST', key: owner.key, body, headers });

describe('webhooks', () => {
  it('create answers the webhook and its secret; GET and the list never show the secret', async () => {
    const created = await create({ url: 'https://hooks.example.com/a', eventTypes: ['story.created'] });
    expect(created.status).toBe(200);
    expect(Object.keys(created.json)).toEqual([
      'id',
      'url',
      'eventTypes',
      'active',
      'description',
      'createTime',
      'updateTime',
      'secret',
    ]);
    expect(created.json).toMatchObject({ active: true, description: '', eventTypes: ['story.created'] });
    expect(created.json.secret).toMatch(/^whsec_/);
    // Defaults as the contract states them: active, every type, no description.
    expect(h.webhooks.lastRequest.get('CreateWebhook')).toEqual({
      project_id: Number(P.split('/').at(-1)),
      url: 'https://hooks.example.com/a',
      event_types: ['story.created'],
      active: true,
      description: '',
    });

    const one = await api(`${P}/webhooks/${created.json.id}`, { key: owner.key });
    expect(one.status).toBe(200);
    expect(one.json).toEqual(
      Object.fromEntries(Object.entries(created.json).filter(([k]) => k !== 'secret')),
    );
    expect(one.headers.get('etag')).toBeNull(); // webhooks keep no version
    const list = await api(`${P}/webhooks?pageSize=1`, { key: owner.key });
    expect(list.json).toMatchObject({ page: 1, pageSize: 1, totalPages: 1, totalItems: 1 });
    expect(list.text).not.toContain('secret');
  });

  it('XML in and out: <eventTypes> items, alphabetical children, the page as <webhooks><items><webhook>', async () => {
    const res = await create(
      '<webhook><url>https://hooks.example.com/x</url><active>false</active><description>XML</description>' +
        '<eventTypes><eventType>story.moved</eventType><eventType>task.deleted</eventType></eventTypes></webhook>',
      { 'Content-Type': 'application/xml' },
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/xml; charset=utf-8');
    expect(res.text).toMatch(
      /^<\?xml version="1.0" encoding="utf-8"\?><webhook><active>false<\/active><createTime>[^<]+<\/createTime>/,
    );
    expect(res.text).toContain(
      '<eventTypes><eventType>story.moved</eventType><eventType>task.deleted</eventType></eventTypes>',
    );
    expect(res.text).toMatch(/<secret>whsec_[^<]+<\/secret><updateTime>/);
    const page = await api(`${P}/webhooks.xml`, { key: owner.key });
    expect(page.text).toMatch(/^<\?xml[^>]*\?><webhooks><items><webhook><active>/);
    expect(page.text).toContain('</items><page>1</page><pageSize>100</pageSize>');
  });

  it('PUT sends only the fields present as the update mask; an empty body writes nothing', async () => {
    const { json } = await create({ url: 'https://hooks.example.com/b', description: 'before' });
    const W = `${P}/webhooks/${json.id}`;
    const res = await api(W, { method: 'PUT', key: owner.key, body: { active: false, url: null, id: 99 } });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ id: json.id, active: false, description: 'before' });
    expect(h.webhooks.lastRequest.get('UpdateWebhook')).toMatchObject({ update_mask: ['active'] });

    h.webhooks.webhooks.get(json.id)!.disabled_reason = 'disabled after 24 h of failed deliveries';
    const disabled = await api(W, { key: owner.key });
    expect(disabled.json.disabledReason).toBe('disabled after 24 h of failed deliveries');
    const reactivated = await api(W, {
      method: 'PUT',
      key: owner.key,
      body: '<webhook><active>true</active><eventTypes /></webhook>',
      headers: { 'Content-Type': 'application/xml', Accept: 'application/json' },
    });
    expect(reactivated.json).toMatchObject({ active: true, eventTypes: [] });
    expect(reactivated.json).not.toHaveProperty('disabledReason');
    expect(h.webhooks.lastRequest.get('UpdateWebhook')).toMatchObject({
      update_mask: ['event_types', 'active'],
    });

    const updates = h.webhooks.calls.count('UpdateWebhook');
    const unchanged = await api(W, { method: 'PUT', key: owner.key, body: {} });
    expect(unchanged.status).toBe(200);
    expect(unchanged.json.id).toBe(json.id);
    expect(h.webhooks.calls.count('UpdateWebhook')).toBe(updates);

    expect((await api(W, { method: 'DELETE', key: owner.key })).status).toBe(200);
    expect((await api(W, { key: owner.key })).status).toBe(404);
  });

  it('400 for bad shapes (no call) and for what the service refuses; 404 for unknown ids', async () => {
    const calls = h.webhooks.calls.count('CreateWebhook');
    for (const body of [
      {},
      { url: 5 },
      { url: 'https://e.com', eventTypes: 'story.created' },
      { url: 'https://e.com', active: 'maybe' },
    ]) {
      const res = await create(body);
      expect(res.status).toBe(400);
      expect(res.json.type).toBe('urn:flowboard:problem:invalid-field');
    }
    expect(h.webhooks.calls.count('CreateWebhook')).toBe(calls);

    const ftp = await create({ url: 'ftp://files.example.com/' });
    expect(ftp.status).toBe(400);
    expect(ftp.json).toMatchObject({
      type: 'urn:flowboard:problem:invalid-field',
      detail: expect.stringContaining('http'),
    });
    const unknownType = await create({ url: 'https://e.com', eventTypes: ['story.exploded'] });
    expect(unknownType.status).toBe(400);
    expect(unknownType.json.detail).toContain('story.exploded');

    for (const path of ['/webhooks/1', '/webhooks/1/deliveries', '/webhooks/1/ping'])
      expect(
        (await api(`${P}${path}`, { key: owner.key, method: path.endsWith('ping') ? 'POST' : 'GET' })).status,
      ).toBe(404);
    expect((await api(`${P}/webhooks?where=url:x`, { key: owner.key })).json.type).toBe(
      'urn:flowboard:problem:invalid-filter',
    );
    expect((await api(`${P}/webhooks?with=deliveries`, { key: owner.key })).status).toBe(400);
    expect((await api(`${P}/webhooks?with=everything`, { key: owner.key })).status).toBe(200);
  });

  it('admin only: a ReadWrite member gets 403, a non-member 404, and webhooks is never called', async () => {
    const { json } = await create({ url: 'https://hooks.example.com/c' });
    const before = ['ListWebhooks', 'GetWebhook', 'CreateWebhook', 'PingWebhook'].map((m) =>
      h.webhooks.calls.count(m),
    );
    for (const [caller, status] of [
      [writer.key, 403],
      [stranger.key, 404],
    ] as const) {
      expect((await api(`${P}/webhooks`, { key: caller })).status).toBe(status);
      expect((await api(`${P}/webhooks/${json.id}`, { key: caller })).status).toBe(status);
      expect(
        (await api(`${P}/webhooks`, { key: caller, method: 'POST', body: { url: 'https://e.com' } })).status,
      ).toBe(status);
      expect((await api(`${P}/webhooks/${json.id}/ping`, { key: caller, method: 'POST' })).status).toBe(
        status,
      );
    }
    expect(
      ['ListWebhooks', 'GetWebhook', 'CreateWebhook', 'PingWebhook'].map((m) => h.webhooks.calls.count(m)),
    ).toEqual(before);
  });
});

describe('deliveries, ping and redelivery', () => {
  it('pages deliveries newest first; pageSize above 100 is clamped to 100 and echoed', async () => {
    const { json } = await create({ url: 'https://hooks.example.com/d' });
    for (let i = 0; i < 3; i++) h.webhooks.addDelivery(json.id);
    const D = `${P}/webhooks/${json.id}/deliveries`;
    const second = await api(`${D}?page=2&pageSize=2`, { key: owner.key });
    expect(second.json).toMatchObject({ page: 2, pageSize: 2, totalPages: 2, totalItems: 3 });
    expect(second.json.items).toHaveLength(1);
    expect(Object.keys(second.json.items[0])).toEqual([
      'id',
      'eventId',
      'eventType',
      'attempt',
      'status',
      'responseStatusCode',
      'latencyMs',
      'error',
      'attemptedAt',
      'createTime',
      'attempts',
    ]);
    expect(h.webhooks.lastRequest.get('ListDeliveries')).toMatchObject({ page: 2, page_size: 2 });
    const big = await api(`${D}?pageSize=5000`, { key: owner.key });
    expect(big.json).toMatchObject({ page: 1, pageSize: 100, totalPages: 1, totalItems: 3 });
    expect(h.webhooks.lastRequest.get('ListDeliveries')).toMatchObject({ page: 1, page_size: 100 });
    const byDefault = await api(D, { key: owner.key });
    expect(byDefault.json.pageSize).toBe(100);
    expect((await api(`${D}?pageSize=0`, { key: owner.key })).status).toBe(400);

    const xml = await api(`${D}.xml?pageSize=1`, { key: owner.key });
    expect(xml.text).toMatch(/^<\?xml[^>]*\?><deliveries><items><delivery><attempt>1<\/attempt>/);
    expect(xml.text).toContain('<attempts><attempt><attempt>1</attempt>');
  });

  it('ping answers its delivery id; redeliver answers the new delivery; both 400 while inactive', async () => {
    const { json } = await create({ url: 'https://hooks.example.com/e' });
    const W = `${P}/webhooks/${json.id}`;
    const ping = await api(`${W}/ping`, { method: 'POST', key: owner.key });
    expect(ping.status).toBe(200);
    expect(Object.keys(ping.json)).toEqual(['id']);
    const pingXml = await api(`${W}/ping`, {
      method: 'POST',
      key: owner.key,
      headers: { Accept: 'application/xml' },
    });
    expect(pingXml.text).toMatch(/<delivery><id>\d+<\/id><\/delivery>$/);

    const redelivered = await api(`${W}/deliveries/${ping.json.id}/redeliver`, {
      method: 'POST',
      key: owner.key,
    });
    expect(redelivered.status).toBe(200);
    expect(redelivered.json).toMatchObject({
      status: 'pending',
      attempt: 0,
      eventType: 'webhook.ping',
      attempts: [],
    });
    expect(redelivered.json.id).not.toBe(ping.json.id);
    expect(redelivered.json).not.toHaveProperty('attemptedAt');
    expect(
      (await api(`${W}/deliveries/999999999/redeliver`, { method: 'POST', key: owner.key })).status,
    ).toBe(404);

    await api(W, { method: 'PUT', key: owner.key, body: { active: false } });
    const refused = await api(`${W}/ping`, { method: 'POST', key: owner.key });
    expect(refused.status).toBe(400);
    expect(refused.json).toMatchObject({ type: 'urn:flowboard:problem:invalid-state' });
    expect(
      (await api(`${W}/deliveries/${ping.json.id}/redeliver`, { method: 'POST', key: owner.key })).json.type,
    ).toBe('urn:flowboard:problem:invalid-state');
  });

  it('Idempotency-Key: a retried create or ping runs once and replays the first answer, secret included', async () => {
    const headers = { 'Idempotency-Key': `"wh-${Date.now()}"` };
    const calls = h.webhooks.calls.count('CreateWebhook');
    const first = await create({ url: 'https://hooks.example.com/f' }, headers);
    const again = await create({ url: 'https://hooks.example.com/f' }, headers);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.json).toEqual(first.json);
    expect(h.webhooks.calls.count('CreateWebhook')).toBe(calls + 1);
    expect((await create({ url: 'https://hooks.example.com/g' }, headers)).status).toBe(422);

    const pings = h.webhooks.calls.count('PingWebhook');
    const pingKey = { 'Idempotency-Key': `"ping-${Date.now()}"` };
    const ping = () =>
      api(`${P}/webhooks/${first.json.id}/ping`, { method: 'POST', key: owner.key, headers: pingKey });
    expect((await ping()).json).toEqual((await ping()).json);
    expect(h.webhooks.calls.count('PingWebhook')).toBe(pings + 1);
  });

  // Issue 26 changed the readiness half of this test: /readyz was 503 without webhooks; now it depends on no
  // dependency (docs/design.md, "Failure isolation") and webhooks' operations answer 503 with Retry-After.
  it('webhooks down: 503 for its operations; /readyz stays 200 without it', async () => {
    h.webhooks.calls.unavailable.add('ListWebhooks');
    try {
      const res = await api(`${P}/webhooks`, { key: owner.key });
      expect(res.status).toBe(503);
      expect(res.json.type).toBe('urn:flowboard:problem:unavailable');
    } finally {
      h.webhooks.calls.unavailable.delete('ListWebhooks');
    }
    const other = await h.gateway({ WEBHOOKS_ADDR: '127.0.0.1:1' });
    expect((await fetch(`${other.baseUrl}/readyz`)).status).toBe(200);
    const down = await apiClient(other.baseUrl)(`${P}/webhooks`, { key: owner.key });
    expect(down.status).toBe(503);
    expect(down.json.type).toBe('urn:flowboard:problem:unavailable');
    expect(Number(down.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await fetch(`${h.baseUrl}/readyz`)).status).toBe(200);
  });
});
