import { uniqueSuffix } from '@flowboard/testing';
import {
  accessLadder,
  accessMatrix,
  api,
  childNames,
  createProject,
  signUp,
  sorted,
  XML_HEADERS,
  type Caller,
  type Callers,
  type SignedUp,
} from './support';

/**
 * Roles and members through the gateway (spec "Roles and members", docs/compat.md §5.7): shapes in JSON and
 * XML, the access matrix of every role endpoint, the last-admin rule and immediate revocation.
 */
jest.setTimeout(60_000);

let owner: SignedUp;
let project: { id: number; name: string };
const P = () => `/api/v1/projects/${project.id}`;
/** One key per access level (support.ts accessLadder): its roles are Administrators, Members and Readers. */
let callers: Callers;

async function createRole(name: string, access: string, key = owner.key): Promise<{ id: number }> {
  const res = await api(`${P()}/roles`, { method: 'POST', key, body: { name, access } });
  if (res.status !== 200) throw new Error(`role create failed: ${res.status} ${res.text}`);
  return res.json;
}

/** A bare scalar (`42`, `"bob"`) or an object, always sent as JSON. */
async function addMember(roleId: number, user: unknown) {
  return api(`${P()}/roles/${roleId}/members`, {
    method: 'POST',
    key: owner.key,
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(user),
  });
}

beforeAll(async () => {
  owner = await signUp('roles-owner');
  project = await createProject(owner.key);
  callers = await accessLadder(owner, project.id);
  await createRole('Level read', 'read');
});

describe('role resources', () => {
  it('creates a role with access none by default, trimmed, and lists roles in a page', async () => {
    const created = await api(`${P()}/roles`, {
      method: 'POST',
      key: owner.key,
      body: { name: '  Testers ' },
    });
    expect(created.status).toBe(200);
    expect(Object.keys(created.json)).toEqual(['id', 'name', 'access', 'members']);
    expect(created.json).toMatchObject({ name: 'Testers', access: 'none', members: [] });

    const list = await api(`${P()}/roles?pageSize=2&page=2`, { key: owner.key });
    expect(list.status).toBe(200);
    expect(Object.keys(list.json)).toEqual(['page', 'pageSize', 'totalPages', 'totalItems', 'items']);
    expect(list.json).toMatchObject({ page: 2, pageSize: 2, totalItems: 5, totalPages: 3 });
    expect(list.json.items.map((r: { name: string }) => r.name)).toEqual(['Readers', 'Level read']);

    const admins = await api(`${P()}/roles?where=name:Administrators`, { key: owner.key });
    expect(admins.json.items).toHaveLength(1);
    expect(admins.json.items[0].members).toEqual([
      { id: owner.id, name: 'roles-owner Tester', userName: owner.userName, email: owner.email },
    ]);
    const quoted = await api(
      `${P()}/roles?where=${encodeURIComponent('name:"level read" OR name:testers')}`,
      {
        key: owner.key,
      },
    );
    expect(quoted.json.items.map((r: { name: string }) => r.name)).toEqual(['Level read', 'Testers']);
    const notFilter = await api(`${P()}/roles?where=${encodeURIComponent('not(name:invalid)')}`, {
      key: owner.key,
    });
    expect(notFilter.json.totalItems).toBe(5);
    const bad = await api(`${P()}/roles?where=colour:red`, { key: owner.key });
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({ type: 'urn:flowboard:problem:invalid-filter' });
    expect(bad.json.detail).toContain('colour');
    expect((await api(`${P()}/roles?with=members`, { key: owner.key })).status).toBe(400);
  });

  it('answers roles and member pages in XML with alphabetical children', async () => {
    const res = await api(`${P()}/roles.xml?where=name:administrators`, { key: owner.key });
    expect(res.status).toBe(200);
    expect(childNames(res.text, 'roles')).toEqual(['items', 'page', 'pageSize', 'totalItems', 'totalPages']);
    expect(childNames(res.text, 'role')).toEqual(['access', 'id', 'members', 'name']);
    expect(childNames(res.text, 'user')).toEqual(['email', 'id', 'name', 'userName']);

    const roleId = (await api(`${P()}/roles?where=name:administrators`, { key: owner.key })).json.items[0].id;
    const members = await api(`${P()}/roles/${roleId}/members`, { key: owner.key, headers: XML_HEADERS });
    expect(members.status).toBe(200);
    expect(childNames(members.text, 'users')).toEqual(
      sorted(['items', 'page', 'pageSize', 'totalItems', 'totalPages']),
    );
    expect(childNames(members.text, 'user')).toEqual([
      'bio',
      'createTime',
      'email',
      'id',
      'name',
      'userName',
    ]);
  });

  it('updates a role partially, from JSON and from XML', async () => {
    const role = await createRole('Renamed later', 'read');
    const renamed = await api(`${P()}/roles/${role.id}`, {
      method: 'PUT',
      key: owner.key,
      body: { name: 'Reviewers' },
    });
    expect(renamed.json).toMatchObject({ id: role.id, name: 'Reviewers', access: 'read' });
    const xml = await api(`${P()}/roles/${role.id}`, {
      method: 'PUT',
      key: owner.key,
      headers: { 'Content-Type': 'application/xml', Accept: 'application/xml' },
      body: '<role><access>ReadWrite</access><id>1</id></role>',
    });
    expect(xml.status).toBe(200);
    expect(xml.text).toContain('<access>readwrite</access>');
    expect(xml.text).toContain('<name>Reviewers</name>');
    const bad = await api(`${P()}/roles/${role.id}`, {
      method: 'PUT',
      key: owner.key,
      body: { access: 'write' },
    });
    expect(bad.status).toBe(400);
    expect(bad.json.detail).toContain('access');
  });

  it('adds members by id, username and object, replaces them, and removes by id or username', async () => {
    const role = await createRole(`Members ${uniqueSuffix()}`, 'read');
    const [a, b, c] = [await signUp('mem-a'), await signUp('mem-b'), await signUp('mem-c')];
    expect((await addMember(role.id, a.id)).status).toBe(200);
    expect((await addMember(role.id, b.userName.toUpperCase())).status).toBe(200);
    const third = await addMember(role.id, { username: c.userName });
    expect(third.status).toBe(200);
    expect(third.json.items.map((u: { id: number }) => u.id)).toEqual([a.id, b.id, c.id]);
    expect(Object.keys(third.json.items[0])).toEqual([
      'id',
      'name',
      'userName',
      'email',
      'bio',
      'createTime',
    ]);

    const unknown = await addMember(role.id, 'no-such-user-x');
    expect(unknown.status).toBe(400);
    expect(unknown.json.type).toBe('urn:flowboard:problem:invalid-reference');

    const replaced = await api(`${P()}/roles/${role.id}/members`, {
      method: 'PUT',
      key: owner.key,
      headers: { 'Content-Type': 'application/xml', Accept: 'application/json' },
      body: `<users><user>${c.id}</user><user><userName>${a.userName}</userName></user></users>`,
    });
    expect(replaced.status).toBe(200);
    expect(replaced.json.items.map((u: { id: number }) => u.id)).toEqual([a.id, c.id]);

    const filtered = await api(`${P()}/roles/${role.id}/members?where=username:${c.userName}`, {
      key: owner.key,
    });
    expect(filtered.json.items.map((u: { id: number }) => u.id)).toEqual([c.id]);

    const removed = await api(`${P()}/roles/${role.id}/members/${a.userName}`, {
      method: 'DELETE',
      key: owner.key,
    });
    expect(removed.status).toBe(200);
    expect(removed.json.items.map((u: { id: number }) => u.id)).toEqual([c.id]);
    const again = await api(`${P()}/roles/${role.id}/members/${a.id}`, { method: 'DELETE', key: owner.key });
    expect(again.status).toBe(404);

    const deleted = await api(`${P()}/roles/${role.id}`, { method: 'DELETE', key: owner.key });
    expect(deleted.status).toBe(200);
    expect(deleted.text).toBe('');
    expect((await api(`${P()}/roles/${role.id}`, { key: owner.key })).status).toBe(404);
  });

  it('refuses to remove the last admin (409), whatever the route', async () => {
    const other = await createProject(owner.key);
    const base = `/api/v1/projects/${other.id}/roles`;
    const adminRole = (await api(`${base}?where=name:administrators`, { key: owner.key })).json.items[0].id;
    const remove = await api(`${base}/${adminRole}/members/${owner.id}`, {
      method: 'DELETE',
      key: owner.key,
    });
    expect(remove.status).toBe(409);
    expect(remove.json.type).toBe('urn:flowboard:problem:conflict');
    expect(
      (await api(`${base}/${adminRole}`, { method: 'PUT', key: owner.key, body: { access: 'read' } })).status,
    ).toBe(409);
    expect((await api(`${base}/${adminRole}`, { method: 'DELETE', key: owner.key })).status).toBe(409);
    const empty = await api(`${base}/${adminRole}/members`, { method: 'PUT', key: owner.key, body: [] });
    expect(empty.status).toBe(409);
  });
});

describe('access matrix of the role endpoints', () => {
  // Allowed admin writes get a body that fails validation (400): access is checked before the body, so 400
  // proves the access check passed without changing anything. Deletes act on a fresh role each time.
  const expected = (required: 'Read' | 'Admin', allowedStatus = 200): Record<Caller, number[]> => ({
    anonymous: [401],
    stranger: [404],
    none: [403],
    read: [required === 'Read' ? allowedStatus : 403],
    readwrite: [required === 'Read' ? allowedStatus : 403],
    admin: [allowedStatus],
  });

  const cases: Array<{
    name: string;
    expect: Record<Caller, number[]>;
    request: () => Promise<{ path: string; method?: string; body?: unknown }>;
  }> = [
    { name: 'GET P/roles', expect: expected('Read'), request: async () => ({ path: `${P()}/roles` }) },
    {
      name: 'POST P/roles',
      expect: expected('Admin', 400),
      request: async () => ({ path: `${P()}/roles`, method: 'POST', body: {} }),
    },
    {
      name: 'GET P/roles/{id}',
      expect: expected('Read'),
      request: async () => ({ path: `${P()}/roles/${(await createRole('m', 'read')).id}` }),
    },
    {
      name: 'PUT P/roles/{id}',
      expect: expected('Admin', 400),
      request: async () => ({
        path: `${P()}/roles/${(await createRole('m', 'read')).id}`,
        method: 'PUT',
        body: { access: 'bogus' },
      }),
    },
    {
      name: 'DELETE P/roles/{id}',
      expect: expected('Admin'),
      request: async () => ({ path: `${P()}/roles/${(await createRole('m', 'read')).id}`, method: 'DELETE' }),
    },
    {
      name: 'GET P/roles/{id}/members',
      expect: expected('Read'),
      request: async () => ({ path: `${P()}/roles/${(await createRole('m', 'read')).id}/members` }),
    },
    {
      name: 'POST P/roles/{id}/members',
      expect: expected('Admin', 400),
      request: async () => ({
        path: `${P()}/roles/${(await createRole('m', 'read')).id}/members`,
        method: 'POST',
        body: {},
      }),
    },
    {
      name: 'PUT P/roles/{id}/members',
      expect: expected('Admin', 400),
      request: async () => ({
        path: `${P()}/roles/${(await createRole('m', 'read')).id}/members`,
        method: 'PUT',
        body: {},
      }),
    },
    {
      name: 'DELETE P/roles/{id}/members/{user}',
      expect: expected('Admin'),
      request: async () => {
        const role = await createRole('m', 'none');
        await addMember(role.id, owner.id);
        return { path: `${P()}/roles/${role.id}/members/${owner.userName}`, method: 'DELETE' };
      },
    },
  ];

  it.each(cases)('$name', async ({ expect: wanted, request }) => {
    const matrix = await accessMatrix(callers, async (key) => {
      const { path, method, body } = await request();
      return [(await api(path, { method, key, body })).status];
    });
    expect(matrix).toEqual(wanted);
  });

  it('answers denials in XML too', async () => {
    const res = await api(`${P()}/roles.xml`, { key: callers.none });
    expect(res.status).toBe(403);
    expect(res.text).toContain('<status>403</status>');
  });
});

describe('revocation takes effect on the very next request', () => {
  it('lowering a role, then leaving it, is seen at once despite the access cache', async () => {
    const user = await signUp('revoked');
    const role = await createRole(`Revocable ${uniqueSuffix()}`, 'readwrite');
    await addMember(role.id, user.id);
    // Warm the cache: the user reads twice.
    expect((await api(`${P()}/roles`, { key: user.key })).status).toBe(200);
    expect((await api(`${P()}/roles`, { key: user.key })).status).toBe(200);

    await api(`${P()}/roles/${role.id}`, { method: 'PUT', key: owner.key, body: { access: 'none' } });
    expect((await api(`${P()}/roles`, { key: user.key })).status).toBe(403);

    await api(`${P()}/roles/${role.id}`, { method: 'PUT', key: owner.key, body: { access: 'read' } });
    expect((await api(`${P()}/roles`, { key: user.key })).status).toBe(200);

    // Their last role: no longer a member at all.
    await api(`${P()}/roles/${role.id}/members/${user.id}`, { method: 'DELETE', key: owner.key });
    expect((await api(`${P()}/roles`, { key: user.key })).status).toBe(404);
  });
});
