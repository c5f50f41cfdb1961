import {
  accessLadder,
  accessMatrix,
  api,
  childNames,
  createProject,
  signUp,
  XML_HEADERS,
  type SignedUp,
} from './support';

/**
 * `P/members` through the gateway (docs/compat.md §5.2), the access matrix and revocation: removed → next
 * 404.
 */
jest.setTimeout(60_000);

let owner: SignedUp;
let project: { id: number; name: string };
const P = () => `/api/v1/projects/${project.id}`;

const add = (user: unknown, key = owner.key) =>
  api(`${P()}/members`, {
    method: 'POST',
    key,
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(user),
  });

beforeAll(async () => {
  owner = await signUp('members-owner');
  project = await createProject(owner.key);
});

describe('project members', () => {
  it('adds a member to the project and its Members role (readwrite); adding again is a no-op', async () => {
    const bob = await signUp('bob');
    const first = await add(bob.userName);
    expect(first.status).toBe(200);
    expect(first.json.items.map((u: { id: number }) => u.id)).toEqual([owner.id, bob.id]);
    expect(Object.keys(first.json.items[1])).toEqual([
      'id',
      'name',
      'userName',
      'email',
      'bio',
      'createTime',
    ]);
    expect((await add({ id: bob.id })).json.totalItems).toBe(2);

    const roles = await api(`${P()}/roles?where=name:Members`, { key: bob.key });
    expect(roles.status).toBe(200);
    expect(roles.json.items[0].members.map((u: { id: number }) => u.id)).toEqual([bob.id]);
    // readwrite, not admin
    expect((await api(`${P()}/roles`, { method: 'POST', key: bob.key, body: { name: 'x' } })).status).toBe(
      403,
    );
  });

  it('gets one member by id or username, lists with a filter, in JSON and XML', async () => {
    const carl = await signUp('carl');
    await add(carl.id);
    const byName = await api(`${P()}/members/${carl.userName.toUpperCase()}`, { key: owner.key });
    expect(byName.status).toBe(200);
    expect(byName.json).toMatchObject({ id: carl.id, userName: carl.userName, bio: '' });
    const xml = await api(`${P()}/members/${carl.id}`, { key: owner.key, headers: XML_HEADERS });
    expect(childNames(xml.text, 'user')).toEqual(['bio', 'createTime', 'email', 'id', 'name', 'userName']);
    const page = await api(`${P()}/members.xml?where=email:${carl.email}`, { key: owner.key });
    expect(page.status).toBe(200);
    expect(childNames(page.text, 'users')).toEqual(['items', 'page', 'pageSize', 'totalItems', 'totalPages']);
    expect(page.text).toContain(`<totalItems>1</totalItems>`);
    const stranger = await signUp('nobody');
    expect((await api(`${P()}/members/${stranger.id}`, { key: owner.key })).status).toBe(404);
    expect((await add('no-such-user-zz')).status).toBe(400);
  });

  it('adds members from an XML body: <user>name</user> and <user><id>…</id></user>; an unknown user is 400', async () => {
    const [dave, erin] = await Promise.all([signUp('dave'), signUp('erin')]);
    const addXml = (body: string) =>
      api(`${P()}/members`, {
        method: 'POST',
        key: owner.key,
        headers: { 'Content-Type': 'application/xml', Accept: 'application/xml' },
        body,
      });
    const before = (await api(`${P()}/members`, { key: owner.key })).json.totalItems as number;

    const byName = await addXml(`<user>${dave.userName.toUpperCase()}</user>`);
    expect(byName.status).toBe(200);
    expect(byName.headers.get('content-type')).toBe('application/xml; charset=utf-8');
    expect(byName.text).toMatch(/^<\?xml version="1.0" encoding="utf-8"\?><users><items><user>/);
    expect(childNames(byName.text, 'users')).toEqual([
      'items',
      'page',
      'pageSize',
      'totalItems',
      'totalPages',
    ]);
    expect(byName.text).toContain(`<totalItems>${before + 1}</totalItems>`);
    expect(byName.text).toMatch(
      new RegExp(
        `<user><bio /><createTime>[^<]+</createTime><email>${dave.email}</email><id>${dave.id}</id><name>dave Tester</name><userName>${dave.userName}</userName></user>`,
      ),
    );

    const byId = await addXml(`<user><id>${erin.id}</id></user>`);
    expect(byId.status).toBe(200);
    expect(byId.text).toContain(`<totalItems>${before + 2}</totalItems>`);
    expect(byId.text).toContain(
      `<id>${erin.id}</id><name>erin Tester</name><userName>${erin.userName}</userName>`,
    );
    for (const u of [dave, erin]) {
      const member = await api(`${P()}/members/${u.id}`, { key: owner.key });
      expect(member.status).toBe(200);
      expect(member.json.userName).toBe(u.userName);
      expect((await api(P(), { key: u.key })).status).toBe(200); // a member now: the project is visible
    }

    const unknown = await addXml('<user><userName>no-such-user-zz</userName></user>');
    expect(unknown.status).toBe(400);
    expect(unknown.text).toContain('<status>400</status>');
    expect((await api(`${P()}/members`, { key: owner.key })).json.totalItems).toBe(before + 2);
  });

  it('refuses to remove the owner (409)', async () => {
    const res = await api(`${P()}/members/${owner.userName}`, { method: 'DELETE', key: owner.key });
    expect(res.status).toBe(409);
  });

  it('access matrix: Read to list and get, Admin to add and remove', async () => {
    const callers = await accessLadder(owner, project.id);
    const outsider = await signUp('m-outsider');
    const status = async (path: string, key: string | undefined, method = 'GET', body?: unknown) =>
      (await api(path, { key, method, body })).status;
    const matrix = await accessMatrix(callers, async (key) => [
      await status(`${P()}/members`, key),
      await status(`${P()}/members/${owner.id}`, key),
      await status(`${P()}/members`, key, 'POST', {}), // admin: 400 (access passes, body fails)
      await status(`${P()}/members/${outsider.id}`, key, 'DELETE'), // admin: 404 (not a member)
    ]);
    expect(matrix).toEqual({
      anonymous: [401, 401, 401, 401],
      stranger: [404, 404, 404, 404],
      none: [403, 403, 403, 403],
      read: [200, 200, 403, 403],
      readwrite: [200, 200, 403, 403],
      admin: [200, 200, 400, 404],
    });
  });
});

describe('revocation', () => {
  it('a removed member gets 404 on the very next request, despite the access cache', async () => {
    const gone = await signUp('gone');
    await add(gone.id);
    expect((await api(P(), { key: gone.key })).status).toBe(200);
    expect((await api(`${P()}/roles`, { key: gone.key })).status).toBe(200); // cached now

    const removed = await api(`${P()}/members/${gone.userName}`, { method: 'DELETE', key: owner.key });
    expect(removed.status).toBe(200);
    expect(removed.text).toBe('');
    expect(removed.headers.get('content-type')).toBeNull();

    const next = await api(`${P()}/roles`, { key: gone.key });
    expect(next.status).toBe(404);
    expect((await api(P(), { key: gone.key })).status).toBe(404);
    // Gone from every role too.
    const roles = await api(`${P()}/roles`, { key: owner.key });
    for (const role of roles.json.items) {
      expect(role.members.map((u: { id: number }) => u.id)).not.toContain(gone.id);
    }
  });
});
