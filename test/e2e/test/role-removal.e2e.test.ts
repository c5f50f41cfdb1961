import { api, childNames, createProject, signUp, XML_HEADERS, type SignedUp } from './support';

/**
 * Losing one's last role of a project leaves the project (spec "project members are grouped into roles"), by
 * each route: DELETE P/roles/{id}/members/{user} (JSON and XML), PUT P/roles/{id}/members and DELETE
 * P/roles/{id}. On the very next request the user gets 404 like any outsider (not 403), is gone from P/members,
 * from their project list and /me/stories, and no longer counts as a collaborator. Another role keeps a user a
 * member, and the owner always stays one. The DELETE member answer is still the role's remaining members.
 */
jest.setTimeout(60_000);

interface Board {
  owner: SignedUp;
  P: string;
  /** The default Members role (readwrite) and a Readers role (read). */
  members: number;
  readers: number;
}

/** A fresh owner per test, so collaborator counts are this test's alone. */
async function newBoard(): Promise<Board> {
  const owner = await signUp('rr-owner');
  const P = `/api/v1/projects/${(await createProject(owner.key)).id}`;
  const members = (await api(`${P}/roles?where=name:Members`, { key: owner.key })).json.items[0].id;
  const readers = await api(`${P}/roles`, {
    method: 'POST',
    key: owner.key,
    body: { name: 'Readers', access: 'read' },
  });
  return { owner, P, members, readers: readers.json.id };
}

async function join(b: Board, roleId: number, user: SignedUp) {
  const res = await api(`${b.P}/roles/${roleId}/members`, {
    method: 'POST',
    key: b.owner.key,
    body: user.id,
  });
  expect(res.status).toBe(200);
}

const ids = (items: Array<{ id: number }>) => items.map((u) => u.id);
const projectId = (b: Board) => Number(b.P.split('/').pop());

async function memberIds(b: Board): Promise<number[]> {
  return ids((await api(`${b.P}/members`, { key: b.owner.key })).json.items);
}

async function projectIdsOf(user: SignedUp): Promise<number[]> {
  return ids((await api('/api/v1/projects', { key: user.key })).json.items);
}

const collaborators = async (owner: SignedUp) =>
  (await api('/api/v1/me/account', { key: owner.key })).json.collaboratorsUsed as number;

/** Everything a removed member must now see (or not see) about the project, in JSON. */
async function expectOutsider(b: Board, user: SignedUp) {
  const project = await api(b.P, { key: user.key });
  expect(project.status).toBe(404);
  expect(project.json.type).toBe('urn:flowboard:problem:not-found');
  expect((await api(`${b.P}/stories`, { key: user.key })).status).toBe(404);
  expect((await api(`${b.P}/roles`, { key: user.key })).status).toBe(404);
  expect(await memberIds(b)).not.toContain(user.id);
  expect((await api(`${b.P}/members/${user.id}`, { key: b.owner.key })).status).toBe(404);
  expect(await projectIdsOf(user)).not.toContain(projectId(b));
}

describe('DELETE P/roles/{id}/members/{user}', () => {
  it('JSON: another role keeps the user; the last one takes them out of the project at once', async () => {
    const b = await newBoard();
    const ann = await signUp('rr-ann');
    await join(b, b.members, ann);
    await join(b, b.readers, ann);
    const story = await api(`${b.P}/stories`, {
      method: 'POST',
      key: b.owner.key,
      body: { text: 'Ann’s story', owner: ann.id },
    });
    expect(story.status).toBe(200);
    const myStories = async () =>
      ((await api('/api/v1/me/stories', { key: ann.key })).json.items as Array<{ id: number }>).map(
        (s) => s.id,
      );
    expect(await myStories()).toEqual([story.json.id]);
    expect(await collaborators(b.owner)).toBe(1);

    const first = await api(`${b.P}/roles/${b.members}/members/${ann.id}`, {
      method: 'DELETE',
      key: b.owner.key,
    });
    expect(first.status).toBe(200);
    expect(ids(first.json.items)).not.toContain(ann.id);
    // Still in Readers: a member with read access (the access cache is warm from here on).
    expect((await api(`${b.P}/stories`, { key: ann.key })).status).toBe(200);
    expect((await api(`${b.P}/stories`, { key: ann.key })).status).toBe(200);
    expect((await api(`${b.P}/stories`, { method: 'POST', key: ann.key, body: { text: 'x' } })).status).toBe(
      403,
    );

    const last = await api(`${b.P}/roles/${b.readers}/members/${ann.userName}`, {
      method: 'DELETE',
      key: b.owner.key,
    });
    expect(last.status).toBe(200);
    expect(last.json).toEqual({ page: 1, pageSize: 100, totalPages: 0, totalItems: 0, items: [] });

    await expectOutsider(b, ann);
    expect(await memberIds(b)).toEqual([b.owner.id]);
    expect(await myStories()).toEqual([]);
    expect((await api('/api/v1/me?with=stories', { key: ann.key })).json.stories).toEqual([]);
    expect(await collaborators(b.owner)).toBe(0);
    // No longer in the role either: a second removal is 404.
    expect(
      (await api(`${b.P}/roles/${b.readers}/members/${ann.id}`, { method: 'DELETE', key: b.owner.key }))
        .status,
    ).toBe(404);
  });

  it('XML: the answer is the role’s remaining members; the removed user gets 404 problems in XML', async () => {
    const b = await newBoard();
    const [bea, cal] = [await signUp('rr-bea'), await signUp('rr-cal')];
    await join(b, b.members, bea);
    await join(b, b.members, cal);
    expect((await api(`${b.P}.xml`, { key: bea.key })).status).toBe(200);
    expect((await api(`${b.P}.xml`, { key: bea.key })).status).toBe(200); // cached now

    const res = await api(`${b.P}/roles/${b.members}/members/${bea.id}`, {
      method: 'DELETE',
      key: b.owner.key,
      headers: XML_HEADERS,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/xml; charset=utf-8');
    expect(childNames(res.text, 'users')).toEqual(['items', 'page', 'pageSize', 'totalItems', 'totalPages']);
    expect(res.text).toContain('<totalItems>1</totalItems>');
    expect(res.text).toContain(`<id>${cal.id}</id>`);
    expect(res.text).not.toContain(`<id>${bea.id}</id>`);

    const project = await api(`${b.P}.xml`, { key: bea.key });
    expect(project.status).toBe(404);
    expect(project.text).toContain('<status>404</status>');
    expect(project.text).toContain('<type>urn:flowboard:problem:not-found</type>');
    expect((await api(`${b.P}/roles.xml`, { key: bea.key })).status).toBe(404);
    const members = await api(`${b.P}/members.xml`, { key: b.owner.key });
    expect(members.text).toContain('<totalItems>2</totalItems>');
    expect(members.text).not.toContain(`<id>${bea.id}</id>`);
    expect((await api(`${b.P}/members/${bea.id}.xml`, { key: b.owner.key })).status).toBe(404);
    const projects = await api('/api/v1/projects.xml', { key: bea.key });
    expect(projects.status).toBe(200);
    expect(projects.text).toContain('<totalItems>0</totalItems>');
    expect(await collaborators(b.owner)).toBe(1);
  });
});

describe('PUT P/roles/{id}/members', () => {
  it('those left out with no other role leave the project; the kept and the otherwise-roled stay', async () => {
    const b = await newBoard();
    const [dan, eve, fay, gus] = [
      await signUp('rr-dan'),
      await signUp('rr-eve'),
      await signUp('rr-fay'),
      await signUp('rr-gus'),
    ];
    for (const u of [dan, eve, gus]) await join(b, b.members, u);
    await join(b, b.readers, gus);
    for (const u of [dan, gus]) expect((await api(b.P, { key: u.key })).status).toBe(200);

    const res = await api(`${b.P}/roles/${b.members}/members`, {
      method: 'PUT',
      key: b.owner.key,
      headers: { 'Content-Type': 'application/xml', Accept: 'application/json' },
      body: `<users><user>${eve.id}</user><user><userName>${fay.userName}</userName></user></users>`,
    });
    expect(res.status).toBe(200);
    expect(ids(res.json.items)).toEqual([eve.id, fay.id].sort((x, y) => x - y));

    await expectOutsider(b, dan);
    expect((await api(`${b.P}/stories`, { key: gus.key })).status).toBe(200); // Readers keeps gus
    expect((await api(`${b.P}/stories`, { method: 'POST', key: fay.key, body: { text: 'y' } })).status).toBe(
      200,
    );
    expect(await memberIds(b)).toEqual([b.owner.id, eve.id, fay.id, gus.id].sort((x, y) => x - y));
    expect(await collaborators(b.owner)).toBe(3);
  });
});

describe('DELETE P/roles/{id}', () => {
  it('its members with no other role leave; the owner, left with no role at all, stays', async () => {
    const b = await newBoard();
    const [hal, ivy, jo] = [await signUp('rr-hal'), await signUp('rr-ivy'), await signUp('rr-jo')];
    const temp = await api(`${b.P}/roles`, {
      method: 'POST',
      key: b.owner.key,
      body: { name: 'Temporary', access: 'readwrite' },
    });
    const admins = (await api(`${b.P}/roles?where=name:Administrators`, { key: b.owner.key })).json.items[0]
      .id;
    for (const u of [hal, ivy, b.owner]) await join(b, temp.json.id, u);
    await join(b, b.readers, ivy);
    // jo takes over the admin role, so the owner's only role is the one deleted below.
    await join(b, admins, jo);
    const left = await api(`${b.P}/roles/${admins}/members/${b.owner.id}`, {
      method: 'DELETE',
      key: b.owner.key,
    });
    expect(ids(left.json.items)).toEqual([jo.id]);
    expect((await api(b.P, { key: hal.key })).status).toBe(200);

    const deleted = await api(`${b.P}/roles/${temp.json.id}`, { method: 'DELETE', key: b.owner.key });
    expect(deleted.status).toBe(200);
    expect(deleted.text).toBe('');

    await expectOutsider(b, hal);
    expect((await api(`${b.P}/stories`, { key: ivy.key })).status).toBe(200);
    expect(
      (await api(`${b.P}/roles`, { method: 'POST', key: b.owner.key, body: { name: 'z' } })).status,
    ).toBe(200);
    expect(await projectIdsOf(b.owner)).toContain(projectId(b));
    expect(await memberIds(b)).toEqual([b.owner.id, ivy.id, jo.id].sort((x, y) => x - y));
  });
});
