import { uniqueSuffix } from '@flowboard/testing';
import {
  accessLadder,
  accessMatrix,
  api,
  boardsCalls,
  childNames,
  createProject,
  signUp,
  sorted,
  XML_HEADERS,
  type SignedUp,
} from './support';

/** GET /projects, PUT P, DELETE P (docs/compat.md §5.2, §6). */
jest.setTimeout(60_000);

let owner: SignedUp;
let tag: string;
beforeAll(async () => {
  owner = await signUp('proj-owner');
  tag = uniqueSuffix();
});

const P = (id: number) => `/api/v1/projects/${id}`;

describe('project list', () => {
  it('with=phases: each project its own phases, from ONE boards call for the whole page', async () => {
    const user = await signUp('proj-phases');
    const projects = [
      await createProject(user.key),
      await createProject(user.key),
      await createProject(user.key),
    ];
    const added = await api(`${P(projects[1]!.id)}/phases`, {
      method: 'POST',
      key: user.key,
      body: { name: 'Review', description: 'only on the second board' },
    });
    expect(added.status).toBe(200);
    const [batchBefore, singleBefore] = [
      await boardsCalls('BatchListPhases'),
      await boardsCalls('ListPhases'),
    ];

    const res = await api('/api/v1/projects?with=phases', { key: user.key });
    expect(res.status).toBe(200);
    expect(await boardsCalls('BatchListPhases')).toBe(batchBefore + 1);
    expect(await boardsCalls('ListPhases')).toBe(singleBefore);
    for (const [i, project] of projects.entries()) {
      const own = await api(`${P(project.id)}/phases`, { key: user.key });
      expect(res.json.items[i].id).toBe(project.id);
      expect(res.json.items[i].phases).toEqual(own.json.items);
    }
    expect(res.json.items[1].phases).toHaveLength(6);
  });

  it("lists only the caller's projects, with filter, paging and enrichments, in JSON and XML", async () => {
    const a = await createProject(owner.key, `Alpha ${tag}`);
    const b = await createProject(owner.key, `Beta ${tag}`);
    const other = await signUp('proj-other');
    await createProject(other.key, `Alpha ${tag}`);

    const all = await api('/api/v1/projects', { key: owner.key });
    expect(all.status).toBe(200);
    expect(all.json.items.map((p: { id: number }) => p.id)).toEqual([a.id, b.id]);
    expect(Object.keys(all.json.items[0])).toEqual(['id', 'name', 'description', 'createTime', 'owner']);

    const filtered = await api(
      `/api/v1/projects?where=name:"Alpha ${tag}"&with=details,members,phases,roles`,
      {
        key: owner.key,
      },
    );
    expect(filtered.json.totalItems).toBe(1);
    expect(filtered.json.items[0]).toMatchObject({ id: a.id, details: '', members: [{ id: owner.id }] });
    expect(filtered.json.items[0].phases.length).toBeGreaterThan(0);
    expect(filtered.json.items[0].roles.map((r: { name: string }) => r.name)).toEqual([
      'Administrators',
      'Members',
    ]);

    const paged = await api('/api/v1/projects?page=2&pageSize=1', { key: owner.key });
    expect(paged.json).toMatchObject({ page: 2, pageSize: 1, totalPages: 2, totalItems: 2 });
    expect(paged.json.items.map((p: { id: number }) => p.id)).toEqual([b.id]);

    const xml = await api('/api/v1/projects', { key: owner.key, headers: XML_HEADERS });
    expect(childNames(xml.text, 'projects')).toEqual(
      sorted(['page', 'pageSize', 'totalPages', 'totalItems', 'items']),
    );
    expect((await api('/api/v1/projects?where=colour:red', { key: owner.key })).status).toBe(400);
    expect((await api('/api/v1/projects?with=bogus', { key: owner.key })).status).toBe(400);
    expect((await api('/api/v1/projects', {})).status).toBe(401);

    // A member with access none still sees the project in the list.
    const none = await signUp('proj-none');
    const noneRole = await api(`${P(b.id)}/roles`, {
      method: 'POST',
      key: owner.key,
      body: { name: 'Onlookers', access: 'none' },
    });
    await api(`${P(b.id)}/roles/${noneRole.json.id}/members`, {
      method: 'POST',
      key: owner.key,
      body: none.id,
    });
    expect(
      (await api('/api/v1/projects', { key: none.key })).json.items.map((p: { id: number }) => p.id),
    ).toEqual([b.id]);
  });
});

describe('PUT P and DELETE P', () => {
  it('updates fields and the owner (a member, else 400); owner-only delete (admin non-owner → 403)', async () => {
    const project = await createProject(owner.key, `Gamma ${tag}`);
    const admin = await signUp('proj-admin');
    const adminRole = await api(`${P(project.id)}/roles?where=name:Administrators`, { key: owner.key });
    await api(`${P(project.id)}/roles/${adminRole.json.items[0].id}/members`, {
      method: 'POST',
      key: owner.key,
      body: admin.id,
    });
    const stranger = await signUp('proj-stranger');

    const put = await api(`${P(project.id)}?with=details`, {
      method: 'PUT',
      key: owner.key,
      body: { name: 'Renamed', description: 'Solid as a rock', details: '# Yes' },
    });
    expect(put.status).toBe(200);
    expect(put.json).toMatchObject({ name: 'Renamed', description: 'Solid as a rock', details: '# Yes' });
    const xml = await api(P(project.id), {
      method: 'PUT',
      key: owner.key,
      headers: { ...XML_HEADERS, 'Content-Type': 'application/xml' },
      body: '<project><description>From XML</description></project>',
    });
    expect(xml.status).toBe(200);
    expect(xml.text).toContain('<description>From XML</description>');
    expect(
      (await api(P(project.id), { method: 'PUT', key: owner.key, body: { owner: stranger.id } })).status,
    ).toBe(400);

    // Non-owner admin cannot delete.
    expect((await api(P(project.id), { method: 'DELETE', key: admin.key })).status).toBe(403);

    const transfer = await api(P(project.id), {
      method: 'PUT',
      key: owner.key,
      body: { owner: admin.userName },
    });
    expect(transfer.status).toBe(200);
    expect(transfer.json.owner.id).toBe(admin.id);
    // Now the old owner is a non-owner admin.
    expect((await api(P(project.id), { method: 'DELETE', key: owner.key })).status).toBe(403);
    const del = await api(P(project.id), { method: 'DELETE', key: admin.key });
    expect(del.status).toBe(200);
    expect((await api(P(project.id), { key: admin.key })).status).toBe(404);
    expect((await api(P(project.id), { key: owner.key })).status).toBe(404);
  });

  it('access matrix for PUT and DELETE', async () => {
    const project = await createProject(owner.key, `Delta ${tag}`);
    const { admin: _owner, ...callers } = await accessLadder(owner, project.id);
    const matrix = await accessMatrix(callers, async (key) => [
      (await api(P(project.id), { key })).status,
      (await api(P(project.id), { key, method: 'PUT', body: { description: 'x' } })).status,
      (await api(P(project.id), { key, method: 'DELETE' })).status,
    ]);
    expect(matrix).toEqual({
      anonymous: [401, 401, 401],
      stranger: [404, 404, 404],
      none: [403, 403, 403],
      read: [200, 403, 403],
      readwrite: [200, 403, 403],
    });
  });
});
