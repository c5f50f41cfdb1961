import { apiClient } from '@flowboard/testing';
import { startHarness, type Harness } from './support/boot';

let h: Harness;
let api: ReturnType<typeof apiClient>;
let gob: { id: number; key: string };
let lucille: { id: number; key: string };

beforeAll(async () => {
  h = await startHarness();
  api = apiClient(h.baseUrl);
  const g = h.membership.addUser('Gob Bluth');
  const l = h.membership.addUser('Lucille Bluth');
  gob = { id: g.user.id, key: g.key };
  lucille = { id: l.user.id, key: l.key };
});
afterAll(() => h.stop());

const ownerRef = () => ({
  id: gob.id,
  name: 'Gob Bluth',
  userName: 'gobbluth',
  email: `${gob.id}@example.test`,
});

describe('projects', () => {
  it('POST /api/v1/projects creates the project and its board', async () => {
    const res = await api('/api/v1/projects?with=phases', {
      key: gob.key,
      method: 'POST',
      body: { name: 'Chicken Dance', description: 'Caw-ca-caw-ca-ca-caw!', details: 'md' },
    });
    expect(res.status).toBe(200);
    expect(Object.keys(res.json)).toEqual(['id', 'name', 'description', 'createTime', 'owner', 'phases']);
    expect(res.json.owner).toEqual(ownerRef());
    expect(res.json.phases.map((p: { name: string }) => p.name)).toEqual([
      'Backlog',
      'Ready',
      'Working',
      'Complete',
      'Archive',
    ]);
    expect(res.json.phases[0]).not.toHaveProperty('limit');
    expect(res.json.phases[2].limit).toBe(3);
    expect(h.boards.calls.count('CreateBoard')).toBe(1);
  });

  it('boards failing CreateBoard → 503 and the project deleted again (nothing half-written)', async () => {
    const before = new Set(h.membership.projects.keys());
    h.boards.createBoardFails = true;
    try {
      const res = await api('/api/v1/projects', { key: gob.key, method: 'POST', body: { name: 'Half' } });
      expect(res.status).toBe(503);
      expect(res.json).toMatchObject({ status: 503 });
    } finally {
      h.boards.createBoardFails = false;
    }
    expect(h.membership.calls.count('DeleteProject')).toBe(1);
    expect([...h.membership.projects.keys()].filter((id) => !before.has(id))).toEqual([]);
    expect(
      (await api('/api/v1/projects', { key: gob.key, method: 'POST', body: { name: 'Whole' } })).status,
    ).toBe(200);
  });

  it('POST /api/v1/projects without a name → 400 naming it', async () => {
    const res = await api('/api/v1/projects', { key: gob.key, method: 'POST', body: { description: 'x' } });
    expect(res.status).toBe(400);
    expect(res.json.detail).toBe("Field 'name' is required.");
  });

  it('GET P?with=phases,roles in XML: alphabetical elements, wrappers, <limit />', async () => {
    const p = h.membership.addProject(h.membership.users.get(gob.id)!, 'Sudden Valley').project;
    const res = await api(`/api/v1/projects/${p.id}.xml?with=Roles&with=phases`, { key: gob.key });
    expect(res.status).toBe(200);
    const phases = h.boards.phases.get(p.id)!;
    const roles = h.membership.projects.get(p.id)!.roles;
    const user = `<user><email>${gob.id}@example.test</email><id>${gob.id}</id><name>Gob Bluth</name><userName>gobbluth</userName></user>`;
    const phaseXml = phases
      .map(
        (ph) =>
          `<phase><description>${ph.description}</description><id>${ph.id}</id><index>${ph.index}</index>${ph.limit ? `<limit>${ph.limit}</limit>` : '<limit />'}<name>${ph.name}</name></phase>`,
      )
      .join('');
    expect(res.text).toBe(
      '<?xml version="1.0" encoding="utf-8"?><project><createTime>2011-02-17T18:47:16</createTime>' +
        `<description>I can see myself marinating a chicken in that.</description><id>${p.id}</id><name>Sudden Valley</name>` +
        `<owner>${user.slice('<user>'.length, -'</user>'.length)}</owner><phases>${phaseXml}</phases>` +
        `<roles><role><access>admin</access><id>${roles[0]!.id}</id><members>${user}</members><name>Administrators</name></role>` +
        `<role><access>readwrite</access><id>${roles[1]!.id}</id><members /><name>Members</name></role></roles></project>`,
    );
  });

  it('GET P?with=everything in JSON: details after description, enrichments after owner', async () => {
    const p = h.membership.addProject(h.membership.users.get(gob.id)!, 'Everything').project;
    const res = await api(`/api/v1/projects/${p.id}?with=everything`, { key: gob.key });
    expect(Object.keys(res.json)).toEqual([
      'id',
      'name',
      'description',
      'details',
      'createTime',
      'owner',
      'members',
      'metrics',
      'phases',
      'roles',
    ]);
    expect(res.json.metrics).toMatchObject({ throughput: 0, efficiency: 0 });
    expect(res.json.members).toEqual([ownerRef()]);
    expect(res.json.roles[0]).toEqual({
      id: expect.any(Number),
      name: 'Administrators',
      access: 'admin',
      members: [ownerRef()],
    });
  });

  it('a project the caller is not a member of → 404, whatever the route', async () => {
    const p = h.membership.addProject(h.membership.users.get(gob.id)!, 'Secret').project;
    for (const path of [`/api/v1/projects/${p.id}`, `/api/v1/projects/${p.id}/stories/1`]) {
      const res = await api(path, { key: lucille.key });
      expect(res.status).toBe(404);
      expect(res.json.type).toBe('urn:flowboard:problem:not-found');
    }
    expect((await api('/api/v1/projects/999999999', { key: lucille.key })).status).toBe(404);
  });
});

describe('stories and access levels', () => {
  let projectId: number;
  beforeAll(() => {
    const fake = h.membership.addProject(h.membership.users.get(gob.id)!, 'Sudden Valley');
    h.membership.grant(fake, h.membership.users.get(lucille.id)!, 'ACCESS_READ');
    projectId = fake.project.id;
  });

  it('read-only access → 403 on POST stories, and nothing is created', async () => {
    const before = h.boards.calls.count('CreateStory');
    const res = await api(`/api/v1/projects/${projectId}/stories`, {
      key: lucille.key,
      method: 'POST',
      body: { text: 'x' },
    });
    expect(res.status).toBe(403);
    expect(res.json.type).toBe('urn:flowboard:problem:forbidden');
    expect(h.boards.calls.count('CreateStory')).toBe(before);
  });

  it('403 comes before body errors', async () => {
    const res = await api(`/api/v1/projects/${projectId}/stories`, {
      key: lucille.key,
      method: 'POST',
      body: '{bad',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(res.status).toBe(403);
  });

  it('POST P/stories (XML body, phase by numeric string) → the story in the original key order', async () => {
    const phases = h.boards.board(projectId);
    const res = await api(`/api/v1/projects/${projectId}/stories?with=details`, {
      key: gob.key,
      method: 'POST',
      body: `<story><text>Buy boat "The Sea Word" &amp; more</text><size>5</size><color>orange</color><phase>${phases[2]!.id}</phase><details /></story>`,
      headers: { 'Content-Type': 'text/xml', Accept: 'application/json' },
    });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      id: 1,
      text: 'Buy boat "The Sea Word" & more',
      details: '',
      size: '5',
      color: 'orange',
      priority: '',
      status: 'started',
      project: { id: projectId, name: 'Sudden Valley' },
      phase: { id: phases[2]!.id, name: 'Working' },
      creator: ownerRef(),
    });
    expect(Object.keys(res.json)).toEqual([
      'id',
      'text',
      'details',
      'size',
      'color',
      'priority',
      'status',
      'project',
      'phase',
      'creator',
    ]);
  });

  it('phase by name, and GET P/stories/{id} in XML with escaping', async () => {
    const created = await api(`/api/v1/projects/${projectId}/stories`, {
      key: gob.key,
      method: 'POST',
      body: {
        text: 'Unveil <Business> Model & Starla',
        phase: { name: 'complete' },
        deadline: '2011-02-24T00:00:00',
      },
    });
    expect(created.status).toBe(200);
    expect(created.json.phase.name).toBe('Complete');
    const xml = await api(`/api/v1/projects/${projectId}/stories/${created.json.id}`, {
      key: lucille.key,
      headers: { Accept: 'application/xml' },
    });
    expect(xml.status).toBe(200);
    expect(xml.text).toContain('<deadline>2011-02-24T00:00:00</deadline>');
    expect(xml.text).toContain('<priority /><project>');
    expect(xml.text).toContain('<text>Unveil &lt;Business&gt; Model &amp; Starla</text>');
    expect(xml.text).not.toContain('<details');
  });

  it('an unknown story → 404; an unknown phase name → 400 invalid-reference', async () => {
    expect((await api(`/api/v1/projects/${projectId}/stories/999`, { key: gob.key })).status).toBe(404);
    const res = await api(`/api/v1/projects/${projectId}/stories`, {
      key: gob.key,
      method: 'POST',
      body: { text: 'x', phase: 'Nowhere' },
    });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({
      type: 'urn:flowboard:problem:invalid-reference',
      detail: "Unknown phase 'Nowhere'.",
    });
  });

  it('the access decision is cached: repeated requests ask membership once', async () => {
    const before = h.membership.calls.count('GetProjectAccess');
    await api(`/api/v1/projects/${projectId}/stories/1`, { key: lucille.key });
    await api(`/api/v1/projects/${projectId}/stories/1`, { key: lucille.key });
    expect(h.membership.calls.count('GetProjectAccess') - before).toBeLessThanOrEqual(1);
  });
});

describe('invites', () => {
  it('POST P/invites (Admin) with role as {id}', async () => {
    const fake = h.membership.addProject(h.membership.users.get(gob.id)!, 'Invites');
    const role = fake.roles[1]!;
    const res = await api(`/api/v1/projects/${fake.project.id}/invites`, {
      key: gob.key,
      method: 'POST',
      body: { email: 'buster@bluth.com', role: { id: String(role.id) } },
    });
    expect(res.status).toBe(200);
    expect(Object.keys(res.json)).toEqual(['id', 'createTime', 'email', 'token', 'sender', 'role']);
    expect(res.json).toMatchObject({
      email: 'buster@bluth.com',
      sender: ownerRef(),
      role: { id: role.id, name: 'Members' },
    });
  });

  it('below Admin → 403; a missing role → 400', async () => {
    const fake = h.membership.addProject(h.membership.users.get(gob.id)!, 'Invites 2');
    h.membership.grant(fake, h.membership.users.get(lucille.id)!, 'ACCESS_READWRITE');
    const path = `/api/v1/projects/${fake.project.id}/invites`;
    expect(
      (await api(path, { key: lucille.key, method: 'POST', body: { email: 'a@b.c', role: 1 } })).status,
    ).toBe(403);
    const res = await api(path, { key: gob.key, method: 'POST', body: { email: 'a@b.c' } });
    expect(res.status).toBe(400);
    expect(res.json.detail).toBe("Field 'role' is required.");
  });
});
