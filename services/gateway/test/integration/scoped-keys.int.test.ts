import { apiClient } from '@flowboard/testing';
import type { membership } from '@flowboard/proto';
import { startHarness, type Harness } from './support/boot';

// Scoped, expiring API keys at the gateway (README "Scoped API keys"), with fake back ends and real Redis: the
// scope each operation declares is checked before the project is looked at, the refusal names it, an expiry is
// checked on every request even while the key is cached, and the key travels with every call it makes.
let h: Harness;
let api: ReturnType<typeof apiClient>;
let gob: { user: membership.User__Output; key: string };
let projectId: number;
let otherProjectId: number;

beforeAll(async () => {
  h = await startHarness();
  api = apiClient(h.baseUrl);
  gob = h.membership.addUser('Gob Bluth');
  projectId = h.membership.addProject(gob.user, 'Sudden Valley').project.id;
  otherProjectId = h.membership.addProject(gob.user, 'Banana stand').project.id;
  h.boards.board(projectId);
  h.boards.board(otherProjectId);
  const res = await api(`/api/v1/projects/${projectId}/stories`, {
    key: gob.key,
    method: 'POST',
    body: { text: 'one' },
  });
  expect(res.status).toBe(200);
});
afterAll(() => h.stop());

const P = (id = projectId) => `/api/v1/projects/${id}`;
const keyWith = (record: Partial<membership.ApiKey__Output>) =>
  h.membership.addKey(gob.user, { name: 'agent', ...record }).key;

function expectInsufficientScope(res: Awaited<ReturnType<typeof api>>, scope: string) {
  expect(res.status).toBe(403);
  expect(res.json).toMatchObject({ type: 'urn:flowboard:problem:insufficient-scope', status: 403, scope });
  expect(res.headers.get('www-authenticate')).toBe(
    `Bearer realm="flowboard", error="insufficient_scope", scope="${scope}"`,
  );
}

describe('scoped API keys', () => {
  it('a read-only key reads, and every write is 403 naming the scope it lacks, before boards is asked', async () => {
    const key = keyWith({ read_only: true });
    expect((await api(`${P()}/stories`, { key })).status).toBe(200);
    expect((await api(`${P()}/stories/1`, { key })).status).toBe(200);
    const updates = h.boards.calls.count('UpdateStory');
    expectInsufficientScope(
      await api(`${P()}/stories/1`, { key, method: 'PUT', body: { text: 'x' } }),
      'stories:write',
    );
    expectInsufficientScope(
      await api(`${P()}/stories/1/comments`, { key, method: 'POST', body: { text: 'x' } }),
      'comments:write',
    );
    expect(h.boards.calls.count('UpdateStory')).toBe(updates);
  });

  it('in XML too: the scope is a member of the error', async () => {
    const key = keyWith({ read_only: true });
    const res = await api(`${P()}/stories/1`, {
      key,
      method: 'DELETE',
      headers: { Accept: 'application/xml' },
    });
    expect(res.status).toBe(403);
    expect(res.text).toContain('<scope>stories:write</scope>');
    expect(res.text).toContain('<type>urn:flowboard:problem:insufficient-scope</type>');
  });

  it('a key limited to groups reaches only their operations; reading projects needs no group', async () => {
    const key = keyWith({ groups: ['comments'] });
    expect(
      (await api(`${P()}/stories/1/comments`, { key, method: 'POST', body: { text: 'hi' } })).status,
    ).toBe(200);
    expectInsufficientScope(await api(`${P()}/stories`, { key }), 'stories:read');
    expectInsufficientScope(await api(`${P()}/webhooks`, { key }), 'administration:read');
    expectInsufficientScope(await api('/api/v1/me', { key }), 'account:read');
    // Members and the key's own record too (the end-to-end tests read them: this fake membership lists neither).
    expect((await api(P(), { key })).status).toBe(200);
  });

  it('a key limited to projects reaches only those, and cannot create or join another', async () => {
    const key = keyWith({ project_ids: [projectId] });
    expect((await api(`${P()}/stories`, { key })).status).toBe(200);
    const res = await api(`${P(otherProjectId)}/stories`, { key });
    expectInsufficientScope(res, `project:${otherProjectId}`);
    expect(res.json.detail).toBe(`This API key is limited to other projects (${projectId}).`);
    // The answer is the same whether the project exists: the key decides it, not the project.
    expectInsufficientScope(await api(`${P(987_654)}/stories`, { key }), 'project:987654');
    expectInsufficientScope(
      await api('/api/v1/projects', { key, method: 'POST', body: { name: 'New' } }),
      'administration:write on every project',
    );
    expectInsufficientScope(
      await api('/api/v1/invites/abc/accept', { key, method: 'POST' }),
      'account:write on every project',
    );
  });

  it('refuses an expired key on the first request after its expiry, though it is cached', async () => {
    const expiresAt = new Date(Date.now() + 2_000);
    const key = keyWith({ expire_time: expiresAt.toISOString().slice(0, 19) });
    expect((await api(`${P()}/stories`, { key })).status).toBe(200);
    const asked = h.membership.calls.count('AuthenticateApiKey');
    expect((await api(`${P()}/stories`, { key })).status).toBe(200);
    expect(h.membership.calls.count('AuthenticateApiKey')).toBe(asked); // cached
    await new Promise((resolve) => setTimeout(resolve, expiresAt.getTime() - Date.now() + 1_000));
    const res = await api(`${P()}/stories`, { key });
    expect(res.status).toBe(401);
    expect(res.json.detail).toBe('The API key has expired.');
  });

  it('sends the key with every call, so the changes it makes name it', async () => {
    const { key, keyId } = h.membership.addKey(gob.user, { name: 'triage bot — Zoë' });
    expect((await api(`${P()}/stories/1`, { key, method: 'PUT', body: { text: 'renamed' } })).status).toBe(
      200,
    );
    expect(h.boards.calls.lastContext.get('UpdateStory')).toMatchObject({
      userId: gob.user.id,
      apiKey: { id: keyId, name: 'triage bot — Zoë' },
    });
  });

  it('records when keys were used, in batches to membership', async () => {
    const { key, keyId } = h.membership.addKey(gob.user, { name: 'ci' });
    const before = Date.now();
    expect((await api(`${P()}/stories`, { key })).status).toBe(200);
    const used = () => h.membership.keyUses.find((u) => Number(u.api_key_id) === keyId);
    // The harness's gateway sends a batch every second (KEY_USE_FLUSH_SECONDS).
    for (let waited = 0; !used() && waited < 5_000; waited += 100) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const useTime = Date.parse(used()?.use_time ?? '');
    expect(useTime).toBeGreaterThanOrEqual(before);
    expect(useTime).toBeLessThanOrEqual(Date.now());
  });

  it('works with a membership older than scoped keys: the key acts as its user, and no key is named', async () => {
    // That membership answers the user alone, and sees only keys without limits (it finds no other).
    const lucille = h.membership.addUser('Lucille Two');
    const project = h.membership.addProject(lucille.user, 'Old membership').project.id;
    h.boards.board(project);
    h.membership.answersKeyRecords = false;
    try {
      const res = await api(`/api/v1/projects/${project}/stories`, {
        key: lucille.key,
        method: 'POST',
        body: { text: 'still works' },
      });
      expect(res.status).toBe(200);
      const context = h.boards.calls.lastContext.get('CreateStory');
      expect(context).toMatchObject({ userId: lucille.user.id });
      expect(context).not.toHaveProperty('apiKey');
    } finally {
      h.membership.answersKeyRecords = true;
    }
  });
});
