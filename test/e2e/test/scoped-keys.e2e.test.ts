import { apiClient, waitFor } from '@flowboard/testing';
import { OwnGateway } from './own-gateway';
import { api, childNames, createProject, signUp, sorted, XML_HEADERS, type SignedUp } from './support';

// Scoped, expiring API keys through the whole stack (README "Scoped API keys"): made through the API, refused
// operations name the scope, a key limited to projects sees only those, no key can make a wider one, expiry and
// revocation hold on every gateway replica at once, last uses are recorded, and every change says which key made
// it. A second gateway (OwnGateway) stands for the other replicas; it sends key uses every second.
jest.setTimeout(90_000);

let owner: SignedUp;
let project: { id: number; name: string };
let other: { id: number; name: string };
let storyId: number;
let replica: OwnGateway;
let onReplica: ReturnType<typeof apiClient>;

beforeAll(async () => {
  owner = await signUp('scoped');
  project = await createProject(owner.key);
  other = await createProject(owner.key);
  const story = await api(`/api/v1/projects/${project.id}/stories`, {
    method: 'POST',
    key: owner.key,
    body: { text: 'Build the model home', details: 'On the cheap', priority: 'high' },
  });
  expect(story.status).toBe(200);
  storyId = story.json.id;
  replica = await OwnGateway.start({ KEY_USE_FLUSH_SECONDS: '1' });
  onReplica = apiClient(replica.url);
});
afterAll(async () => {
  await replica?.stop();
});

const P = (id = project.id) => `/api/v1/projects/${id}`;

async function makeKey(body: Record<string, unknown>, key = owner.key) {
  const res = await api('/api/v1/me/apikeys', { method: 'POST', key, body });
  expect(res.status).toBe(200);
  return res.json as { id: number; key: string; name: string };
}

function expectInsufficientScope(res: Awaited<ReturnType<typeof api>>, scope: string) {
  expect(res.status).toBe(403);
  expect(res.json).toMatchObject({ type: 'urn:flowboard:problem:insufficient-scope', status: 403, scope });
  expect(res.headers.get('www-authenticate')).toContain(`error="insufficient_scope", scope="${scope}"`);
}

describe('scoped API keys, end to end', () => {
  it('makes a named, expiring, read-only key limited to a project and groups, and shows it, never its secret', async () => {
    const expiresAt = new Date(Date.now() + 86_400_000).toISOString().slice(0, 19);
    const res = await api('/api/v1/me/apikeys', {
      method: 'POST',
      key: owner.key,
      body: {
        name: 'triage bot',
        expiresAt,
        access: 'read',
        projects: [project.id],
        groups: ['stories', 'comments'],
      },
    });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      name: 'triage bot',
      expiresAt,
      access: 'read',
      projects: [project.id],
      groups: ['comments', 'stories'],
      enabled: true,
    });
    expect(res.json.key).toMatch(/^[0-9a-f]{32}$/);
    const current = await api('/api/v1/me/apikeys/current', { key: res.json.key });
    expect(current.status).toBe(200);
    const { key: _secret, ...shown } = res.json;
    expect(current.json).toEqual(shown);
    const listed = await api('/api/v1/me/apikeys', { key: owner.key });
    expect(listed.json.items.find((k: { id: number }) => k.id === res.json.id)).toMatchObject(shown);
    expect(listed.text).not.toContain(res.json.key);
  });

  it('takes the scope in XML too, and answers it there', async () => {
    const res = await api('/api/v1/me/apikeys', {
      method: 'POST',
      key: owner.key,
      headers: { ...XML_HEADERS, 'Content-Type': 'application/xml' },
      body: `<apiKey><name>xml bot</name><access>read</access><projects><project>${project.id}</project></projects><groups><group>stories</group></groups></apiKey>`,
    });
    expect(res.status).toBe(200);
    expect(childNames(res.text, 'apiKey')).toEqual(
      sorted(['id', 'name', 'createTime', 'enabled', 'hint', 'access', 'projects', 'groups', 'key']),
    );
    expect(res.text).toContain(`<projects><project>${project.id}</project></projects>`);
    expect(res.text).toContain('<groups><group>stories</group></groups>');
  });

  it.each<[string, Record<string, unknown>, RegExp]>([
    ['an unknown group', { groups: ['everything'] }, /'groups' holds "everything", which is none of stories/],
    ['an empty list', { projects: [] }, /non-empty array/],
    ['an access that is neither', { access: 'write' }, /'access' must be 'read' or 'readwrite'/],
    ['an expiry in the past', { expiresAt: '2020-01-01T00:00:00' }, /future/],
    ['a project of which the user is no member', { projects: [987_654_321] }, /not a member of: 987654321/],
  ])('refuses %s with 400 and makes no key', async (_case, body, detail) => {
    const before = (await api('/api/v1/me/apikeys', { key: owner.key })).json.totalItems;
    const res = await api('/api/v1/me/apikeys', { method: 'POST', key: owner.key, body });
    expect(res.status).toBe(400);
    expect(res.json.detail).toMatch(detail);
    expect((await api('/api/v1/me/apikeys', { key: owner.key })).json.totalItems).toBe(before);
  });

  it('a read-only key reads the board and cannot change it: 403 naming the scope, nothing written', async () => {
    const { key } = await makeKey({ name: 'reader', access: 'read' });
    expect((await api(`${P()}/stories/${storyId}`, { key })).status).toBe(200);
    expect((await api(`${P()}/phases?with=stories`, { key })).status).toBe(200);
    expectInsufficientScope(
      await api(`${P()}/stories/${storyId}`, { key, method: 'PUT', body: { text: 'Blanked' } }),
      'stories:write',
    );
    expectInsufficientScope(
      await api(`${P()}/stories/${storyId}/comments`, { key, method: 'POST', body: { text: 'hi' } }),
      'comments:write',
    );
    expectInsufficientScope(await api('/api/v1/me/apikeys', { key, method: 'POST' }), 'account:write');
    const story = await api(`${P()}/stories/${storyId}`, { key: owner.key });
    expect(story.json.text).toBe('Build the model home');
  });

  it('a key limited to a project and to stories works there only; its lists show only that project', async () => {
    const { key } = await makeKey({ name: 'mover', projects: [project.id], groups: ['stories'] });
    const phases = (await api(`${P()}/phases`, { key })).json.items as Array<{ id: number }>;
    const moved = await api(`${P()}/stories/${storyId}`, {
      key,
      method: 'PUT',
      body: { phase: phases[1]!.id },
    });
    expect(moved.status).toBe(200);
    expect(moved.json.phase.id).toBe(phases[1]!.id);
    expectInsufficientScope(await api(`${P(other.id)}/stories`, { key }), `project:${other.id}`);
    expectInsufficientScope(await api(`${P()}/stories/${storyId}/comments`, { key }), 'comments:read');
    // Its groups are checked first (the project limit alone refuses it too: the gateway's integration test).
    expectInsufficientScope(
      await api('/api/v1/projects', { key, method: 'POST', body: { name: 'Another' } }),
      'administration:write',
    );
    const listed = await api('/api/v1/projects', { key });
    expect(listed.json.items.map((p: { id: number }) => p.id)).toEqual([project.id]);
    expect((await api('/api/v1/projects', { key: owner.key })).json.totalItems).toBe(2);
  });

  it('a key makes only keys within its own scope and expiry', async () => {
    const expiresAt = new Date(Date.now() + 3_600_000).toISOString().slice(0, 19);
    const { key } = await makeKey({
      name: 'delegate',
      projects: [project.id],
      groups: ['stories', 'account'],
      expiresAt,
    });
    // Wider: another project, another group, no project limit, no expiry, a later one.
    for (const body of [
      { projects: [project.id, other.id], groups: ['stories'], expiresAt },
      { projects: [project.id], groups: ['stories', 'comments'], expiresAt },
      { groups: ['stories'], expiresAt },
      { projects: [project.id], groups: ['stories'] },
      {
        projects: [project.id],
        groups: ['stories'],
        expiresAt: new Date(Date.now() + 7_200_000).toISOString(),
      },
    ]) {
      const res = await api('/api/v1/me/apikeys', { method: 'POST', key, body });
      expect([JSON.stringify(body), res.status, res.json.type]).toEqual([
        JSON.stringify(body),
        403,
        'urn:flowboard:problem:insufficient-scope',
      ]);
    }
    const narrower = await makeKey(
      { access: 'read', projects: [project.id], groups: ['stories'], expiresAt },
      key,
    );
    expect((await api(`${P()}/stories`, { key: narrower.key })).status).toBe(200);
  });

  it('an expired key is refused on the next request after its expiry, on every gateway', async () => {
    const expiresAt = new Date(Date.now() + 4_000);
    const { key } = await makeKey({ name: 'short-lived', expiresAt: expiresAt.toISOString() });
    // Cached by both gateways before it expires.
    expect((await api(`${P()}/stories`, { key })).status).toBe(200);
    expect((await onReplica(`${P()}/stories`, { key })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, expiresAt.getTime() - Date.now() + 1_100));
    for (const res of [await api(`${P()}/stories`, { key }), await onReplica(`${P()}/stories`, { key })]) {
      expect(res.status).toBe(401);
      expect(res.json.detail).toBe('The API key has expired.');
    }
  });

  it('a revoked key is refused on the very next request, on every gateway', async () => {
    const made = await makeKey({ name: 'revoked' });
    expect((await api(`${P()}/stories`, { key: made.key })).status).toBe(200);
    expect((await onReplica(`${P()}/stories`, { key: made.key })).status).toBe(200);
    expect(
      (await onReplica(`/api/v1/me/apikeys/${made.id}`, { method: 'DELETE', key: owner.key })).status,
    ).toBe(200);
    expect((await api(`${P()}/stories`, { key: made.key })).status).toBe(401);
    expect((await onReplica(`${P()}/stories`, { key: made.key })).status).toBe(401);
  });

  it("shows each key's last use", async () => {
    const made = await makeKey({ name: 'used' });
    const before = Date.now();
    expect((await onReplica(`${P()}/stories`, { key: made.key })).status).toBe(200);
    const lastUsed = await waitFor(
      async () => {
        const listed = await api('/api/v1/me/apikeys', { key: owner.key });
        return listed.json.items.find((k: { id: number }) => k.id === made.id)?.lastUsedTime as
          string | undefined;
      },
      10_000,
      'the key’s last use to show',
    );
    const at = Date.parse(`${lastUsed}Z`);
    expect(at).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
    expect(at).toBeLessThanOrEqual(Date.now());
  });

  it("a story's history says who moved it and with which key", async () => {
    const { key, id } = await makeKey({ name: 'history bot', projects: [project.id], groups: ['stories'] });
    const phases = (await api(`${P()}/phases`, { key: owner.key })).json.items as Array<{ id: number }>;
    const created = await api(`${P()}/stories`, {
      method: 'POST',
      key: owner.key,
      body: { text: 'Tracked' },
    });
    const moved = await api(`${P()}/stories/${created.json.id}`, {
      key,
      method: 'PUT',
      body: { phase: phases[2]!.id },
    });
    expect(moved.status).toBe(200);
    const story = await api(`${P()}/stories/${created.json.id}?with=milestones,steps`, { key: owner.key });
    const bys = (rows: Array<{ by?: { id: number; apiKey?: { id: number; name: string } } }>) =>
      rows.map((row) => [row.by?.id, row.by?.apiKey]);
    const own = (await api('/api/v1/me/apikeys/current', { key: owner.key })).json.id;
    expect(bys(story.json.milestones)).toEqual([
      [owner.id, { id: own, name: '' }],
      [owner.id, { id, name: 'history bot' }],
    ]);
    expect(bys(story.json.steps).at(-1)).toEqual([owner.id, { id, name: 'history bot' }]);
    const xml = await api(`${P()}/stories/${created.json.id}?with=milestones`, {
      key: owner.key,
      headers: XML_HEADERS,
    });
    expect(xml.text).toContain('<apiKey><id>');
    expect(xml.text).toContain('<name>history bot</name>');
  });

  it('every change says which key made it, on the change stream (as in webhook payloads)', async () => {
    const { key, id } = await makeKey({ name: 'triage bot — Zoë', projects: [project.id] });
    const start = await api(`${P()}/events?wait=0`, { key: owner.key });
    expect(start.status).toBe(200);
    const updated = await api(`${P()}/stories/${storyId}`, { key, method: 'PUT', body: { priority: 'low' } });
    expect(updated.status).toBe(200);
    const [changeId] = (updated.headers.get('flowboard-changes') ?? '').split(',');
    const events = await api(`${P()}/events?after=${start.json.position}&wait=10`, { key: owner.key });
    const change = events.json.events.find((e: { data: { id: string } }) => e.data.id === changeId);
    expect(change?.data.actor).toMatchObject({ id: owner.id, apiKey: { id, name: 'triage bot — Zoë' } });
    // A change made with the sign-up key names that key (no name).
    const own = await api(`${P()}/stories/${storyId}`, {
      key: owner.key,
      method: 'PUT',
      body: { priority: 'mid' },
    });
    const [ownChange] = (own.headers.get('flowboard-changes') ?? '').split(',');
    const later = await api(`${P()}/events?after=${events.json.position}&wait=10`, { key: owner.key });
    const ownEvent = later.json.events.find((e: { data: { id: string } }) => e.data.id === ownChange);
    expect(ownEvent?.data.actor.apiKey).toMatchObject({ name: '' });
  });
});
