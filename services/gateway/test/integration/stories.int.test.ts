import { apiClient } from '@flowboard/testing';
import type { membership } from '@flowboard/proto';
import { startHarness, type Harness } from './support/boot';

let h: Harness;
let api: ReturnType<typeof apiClient>;
let gob: { user: membership.User__Output; key: string };
let reader: { user: membership.User__Output; key: string };
let outsider: { user: membership.User__Output; key: string };
let projectId: number;

beforeAll(async () => {
  h = await startHarness();
  api = apiClient(h.baseUrl);
  gob = h.membership.addUser('Gob Bluth');
  reader = h.membership.addUser('Lucille Bluth');
  outsider = h.membership.addUser('Buster Bluth');
  const project = h.membership.addProject(gob.user, 'Sudden Valley');
  h.membership.grant(project, reader.user, 'ACCESS_READ');
  projectId = project.project.id;
  h.boards.board(projectId);
  for (const text of ['one', 'two', 'three']) {
    const res = await api(`/api/v1/projects/${projectId}/stories`, {
      key: gob.key,
      method: 'POST',
      body: { text },
    });
    expect(res.status).toBe(200);
  }
});
afterAll(() => h.stop());

const P = () => `/api/v1/projects/${projectId}`;

describe('stories through the gateway (fake boards and membership)', () => {
  it('a read member may list and get, but every write is 403', async () => {
    expect((await api(`${P()}/stories`, { key: reader.key })).status).toBe(200);
    expect((await api(`${P()}/stories/1`, { key: reader.key })).status).toBe(200);
    const writes = [
      api(`${P()}/stories`, { key: reader.key, method: 'POST', body: { text: 'x' } }),
      api(`${P()}/stories/1`, { key: reader.key, method: 'PUT', body: { text: 'x' } }),
      api(`${P()}/stories/1`, { key: reader.key, method: 'DELETE' }),
    ];
    for (const res of await Promise.all(writes)) {
      expect(res.status).toBe(403);
      expect(res.json.type).toBe('urn:flowboard:problem:forbidden');
    }
    expect(h.boards.calls.count('UpdateStory')).toBe(0);
    expect(h.boards.calls.count('DeleteStory')).toBe(0);
  });

  it('anonymous → 401, non-member → 404', async () => {
    expect((await api(`${P()}/stories`)).status).toBe(401);
    expect((await api(`${P()}/stories`, { key: outsider.key })).status).toBe(404);
    expect((await api(`${P()}/stories/1`, { key: outsider.key, method: 'PUT', body: {} })).status).toBe(404);
  });

  it('single-story reads in flight together each get their own story; a missing one alone is 404', async () => {
    const ids = [1, 2, 3, 999, 2, 1, 3];
    const results = await Promise.all(ids.map((id) => api(`${P()}/stories/${id}`, { key: reader.key })));
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 404, 200, 200, 200]);
    expect(results.map((r) => r.json?.text)).toEqual([
      'one',
      'two',
      'three',
      undefined,
      'two',
      'one',
      'three',
    ]);
    expect(results[3]!.json).toMatchObject({ status: 404, detail: 'Story not found' });
  });

  it('lists a page, echoing clamped paging', async () => {
    const res = await api(`${P()}/stories?PageSize=5000&page=1`, { key: gob.key });
    expect(res.status).toBe(200);
    expect(Object.keys(res.json)).toEqual(['page', 'pageSize', 'totalPages', 'totalItems', 'items']);
    expect(res.json).toMatchObject({ page: 1, pageSize: 1000, totalPages: 1, totalItems: 3 });
    expect(res.json.items.map((s: { text: string }) => s.text)).toEqual(['one', 'two', 'three']);
    expect(h.boards.calls.lastContext.get('ListStories')?.userId).toBe(gob.user.id);
  });

  it('resolves users in ONE BatchGetUsers call per response, then from the cache until PUT /me', async () => {
    const users = () => h.membership.calls.count('BatchGetUsers');
    const writer = h.membership.addUser('Kitty Sanchez');
    h.membership.grant(h.membership.projects.get(projectId)!, writer.user, 'ACCESS_READWRITE');
    let before = users();
    const created = await api(`${P()}/stories`, { key: writer.key, method: 'POST', body: { text: 'four' } });
    expect(created.json.creator.name).toBe('Kitty Sanchez');
    expect(users() - before).toBe(1); // the new creator: not cached yet
    before = users();
    const list = await api(`${P()}/stories`, { key: gob.key });
    expect(list.json.items.map((s: { creator: { name: string } }) => s.creator.name)).toEqual([
      'Gob Bluth',
      'Gob Bluth',
      'Gob Bluth',
      'Kitty Sanchez',
    ]);
    expect(users() - before).toBe(0); // both creators are cached
    const renamed = await api('/api/v1/me', { key: writer.key, method: 'PUT', body: { name: 'Kitty S.' } });
    expect(renamed.status).toBe(200);
    before = users();
    const story = await api(`${P()}/stories/${created.json.id}`, { key: gob.key });
    expect(story.json.creator.name).toBe('Kitty S.');
    expect(users() - before).toBe(1);
    await api(`${P()}/stories/${created.json.id}`, { key: writer.key, method: 'DELETE' });
  });

  it.each(['page=0', 'pageSize=0', 'page=abc', 'pageSize=1.5', 'page=-1'])(
    '?%s → 400 invalid-parameter',
    async (q) => {
      const res = await api(`${P()}/stories?${q}`, { key: gob.key });
      expect(res.status).toBe(400);
      expect(res.json.type).toBe('urn:flowboard:problem:invalid-parameter');
    },
  );

  it('sets the owner by username, id or object when a member; null unassigns; others → 400', async () => {
    const byName = await api(`${P()}/stories/1`, {
      key: gob.key,
      method: 'PUT',
      body: { owner: 'LucilleBluth' },
    });
    expect(byName.status).toBe(200);
    expect(byName.json.owner).toMatchObject({ id: reader.user.id, userName: reader.user.user_name });
    const byObject = await api(`${P()}/stories/1`, {
      key: gob.key,
      method: 'PUT',
      body: { owner: { username: gob.user.user_name }, id: 99, creator: { id: 1 }, bogus: true },
    });
    expect(byObject.json.owner.id).toBe(gob.user.id);
    const cleared = await api(`${P()}/stories/1`, { key: gob.key, method: 'PUT', body: { owner: null } });
    expect(cleared.json).not.toHaveProperty('owner');
    for (const owner of [outsider.user.id, 'nobody', { id: outsider.user.id }]) {
      const res = await api(`${P()}/stories/1`, { key: gob.key, method: 'PUT', body: { owner } });
      expect(res.status).toBe(400);
      expect(res.json.type).toBe('urn:flowboard:problem:invalid-reference');
    }
    const bad = await api(`${P()}/stories/1`, { key: gob.key, method: 'PUT', body: { owner: [1] } });
    expect(bad.json.type).toBe('urn:flowboard:problem:invalid-field');
  });

  it('passes project members to boards only when the filter names users', async () => {
    await api(`${P()}/stories?where=${encodeURIComponent('owner:lucillebluth')}`, { key: gob.key });
    const gets = h.membership.calls.count('GetProject');
    await api(`${P()}/stories?where=color:red`, { key: gob.key });
    expect(h.membership.calls.count('GetProject')).toBe(gets);
  });

  it('DELETE → 200 with an empty body and no Content-Type', async () => {
    const res = await api(`${P()}/stories/3`, { key: gob.key, method: 'DELETE' });
    expect(res.status).toBe(200);
    expect(res.text).toBe('');
    expect(res.headers.get('content-type')).toBeNull();
    expect((await api(`${P()}/stories/3`, { key: gob.key, method: 'DELETE' })).status).toBe(404);
  });
});
