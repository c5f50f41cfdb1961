import { uniqueSuffix } from '@flowboard/testing';
import { setAccountLimits } from './operator';
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
 * Accounts and limits through the gateway against the real stack (docs/compat.md §3.3, §5.7; a flowboard
 * addition for `/me/account`): the caller's account in JSON and XML, collaborators and storage in use, 402
 * `plan-limit` on every operation that adds collaborators, the order of checks, and no overshoot under
 * concurrency.
 */
jest.setTimeout(90_000);

const ACCOUNT_KEYS = [
  'id',
  'collaboratorLimit',
  'collaboratorsUsed',
  'storageLimitBytes',
  'storageUsedBytes',
];

const account = async (key: string) => {
  const res = await api('/api/v1/me/account', { key });
  expect(res.status).toBe(200);
  return res.json;
};

async function membersRoleOf(owner: SignedUp, projectId: number): Promise<number> {
  const roles = await api(`/api/v1/projects/${projectId}/roles?where=name:Members`, { key: owner.key });
  return roles.json.items[0].id;
}

const inviteTo = (
  owner: SignedUp,
  projectId: number,
  roleId: number,
  email = `inv-${uniqueSuffix()}@example.test`,
) =>
  api(`/api/v1/projects/${projectId}/invites`, {
    method: 'POST',
    key: owner.key,
    body: { email, role: roleId },
  });

/** A bare JSON string body (a username), as clients send it. */
const jsonString = (value: string) => ({
  headers: { 'Content-Type': 'application/json' },
  body: JSON.stringify(value),
});

/** A 402 problem body, in JSON or XML. */
function expectPlanLimit(res: Awaited<ReturnType<typeof api>>, limit: number) {
  expect(res.status).toBe(402);
  if (res.json) {
    expect(res.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
    expect(res.json).toMatchObject({
      type: 'urn:flowboard:problem:plan-limit',
      title: 'Plan limit exceeded',
      status: 402,
      requestId: res.headers.get('x-request-id'),
    });
    expect(res.json.detail).toContain(`its limit is ${limit}`);
  } else {
    expect(res.text).toContain('<type>urn:flowboard:problem:plan-limit</type>');
    expect(res.text).toContain('<status>402</status>');
    expect(res.text).toContain(`its limit is ${limit}`);
  }
}

describe('GET /me/account', () => {
  it("answers the caller's limits and usage in JSON and XML", async () => {
    const user = await signUp('acct');
    const fresh = await account(user.key);
    // No collaborator limit by default (docs/compat.md §5.7): JSON leaves the key out.
    expect(Object.keys(fresh)).toEqual(ACCOUNT_KEYS.filter((k) => k !== 'collaboratorLimit'));
    expect(fresh).toEqual({
      id: user.id,
      collaboratorsUsed: 0,
      storageLimitBytes: expect.any(Number),
      storageUsedBytes: 0,
    });
    expect(fresh.storageLimitBytes).toBeGreaterThan(0);

    await setAccountLimits(user.id, { collaboratorLimit: 7 });
    expect(Object.keys(await account(user.key))).toEqual(ACCOUNT_KEYS);

    const xml = await api('/api/v1/me/account', { key: user.key, headers: XML_HEADERS });
    expect(xml.status).toBe(200);
    expect(childNames(xml.text, 'account')).toEqual(sorted(ACCOUNT_KEYS));
    expect(xml.text).toContain('<collaboratorLimit>7</collaboratorLimit>');
    await setAccountLimits(user.id, { collaboratorLimit: null });
    expect((await api('/api/v1/me/account.xml', { key: user.key })).text).toContain('<collaboratorLimit />');

    expect((await api('/api/v1/me/account')).status).toBe(401);
    expect((await api('/api/v1/me/account?with=everything', { key: user.key })).status).toBe(200);
    const bad = await api('/api/v1/me/account?with=stories', { key: user.key });
    expect(bad.status).toBe(400);
    expect(bad.json.type).toBe('urn:flowboard:problem:unknown-enrichment');
  });

  it('counts distinct people other than the owner across all their projects, pending invites included', async () => {
    const owner = await signUp('acct-owner');
    const [bob, ann] = [await signUp('acct-bob'), await signUp('acct-ann')];
    const one = await createProject(owner.key);
    const two = await createProject(owner.key);
    const role = await membersRoleOf(owner, two.id);
    for (const p of [one, two])
      expect(
        (await api(`/api/v1/projects/${p.id}/members`, { method: 'POST', key: owner.key, body: bob.id }))
          .status,
      ).toBe(200);
    expect((await inviteTo(owner, two.id, role, ann.email)).status).toBe(200);
    expect((await inviteTo(owner, two.id, role)).status).toBe(200);
    expect((await account(owner.key)).collaboratorsUsed).toBe(3); // bob once, ann's address, a stranger
    // Bob's own account holds nothing of this.
    expect((await account(bob.key)).collaboratorsUsed).toBe(0);
  });

  it('shows the storage attachments use in the projects the caller owns', async () => {
    const owner = await signUp('acct-files');
    const project = await createProject(owner.key);
    const story = await api(`/api/v1/projects/${project.id}/stories`, {
      method: 'POST',
      key: owner.key,
      body: { text: 'Has a file' },
    });
    expect(story.status).toBe(200);
    const body = new FormData();
    body.append(
      'attachment',
      new Blob([new Uint8Array(1234)], { type: 'application/octet-stream' }),
      'a.bin',
    );
    const uploaded = await api(`/api/v1/projects/${project.id}/stories/${story.json.id}/attachments`, {
      method: 'POST',
      key: owner.key,
      body,
    });
    expect(uploaded.status).toBe(200);
    expect((await account(owner.key)).storageUsedBytes).toBe(1234);
  });
});

describe('the collaborator limit (402 plan-limit)', () => {
  let owner: SignedUp;
  let project: { id: number; name: string };
  let role: number;
  let bob: SignedUp;
  let ann: SignedUp;
  const P = () => `/api/v1/projects/${project.id}`;

  beforeAll(async () => {
    owner = await signUp('limit-owner');
    [bob, ann] = [await signUp('limit-bob'), await signUp('limit-ann')];
    project = await createProject(owner.key);
    role = await membersRoleOf(owner, project.id);
    await setAccountLimits(owner.id, { collaboratorLimit: 1 });
    expect((await api(`${P()}/members`, { method: 'POST', key: owner.key, body: bob.id })).status).toBe(200);
  });

  it('refuses every operation that would add a collaborator, with a clear problem, and changes nothing', async () => {
    const as = { key: owner.key };
    expectPlanLimit(await inviteTo(owner, project.id, role), 1);
    expectPlanLimit(await api(`${P()}/members`, { ...as, method: 'POST', body: ann.id }), 1);
    expectPlanLimit(
      await api(`${P()}/roles/${role}/members`, { ...as, method: 'POST', ...jsonString(ann.userName) }),
      1,
    );
    expectPlanLimit(
      await api(`${P()}/roles/${role}/members`, { ...as, method: 'PUT', body: [bob.id, ann.id] }),
      1,
    );
    // XML too.
    expectPlanLimit(
      await api(`${P()}/invites`, {
        ...as,
        method: 'POST',
        headers: { 'Content-Type': 'application/xml', Accept: 'application/xml' },
        body: `<invite><email>x-${uniqueSuffix()}@example.test</email><role>${role}</role></invite>`,
      }),
      1,
    );
    const members = await api(`${P()}/members`, as);
    expect(members.json.items.map((u: { id: number }) => u.id).sort()).toEqual([owner.id, bob.id].sort());
    expect((await api(`${P()}/invites`, as)).json.totalItems).toBe(0);
    expect((await account(owner.key)).collaboratorsUsed).toBe(1);
  });

  it('still allows changes that add nobody: an existing member into another role, removals', async () => {
    const as = { key: owner.key };
    const readers = await api(`${P()}/roles`, {
      ...as,
      method: 'POST',
      body: { name: 'Readers', access: 'read' },
    });
    expect(
      (await api(`${P()}/roles/${readers.json.id}/members`, { ...as, method: 'POST', body: bob.id })).status,
    ).toBe(200);
    expect((await api(`${P()}/members`, { ...as, method: 'POST', ...jsonString(bob.userName) })).status).toBe(
      200,
    );
  });

  it('answers 402 last: access (403), body (400) and duplicates (409) come first', async () => {
    const as = { key: owner.key };
    // bob is a ReadWrite member: below Admin.
    expect(
      (await api(`${P()}/invites`, { key: bob.key, method: 'POST', body: { email: 'a@b.test', role } }))
        .status,
    ).toBe(403);
    expect(
      (await api(`${P()}/invites`, { ...as, method: 'POST', body: { email: 'not an address', role } }))
        .status,
    ).toBe(400);
    const unknown = await api(`${P()}/members`, { ...as, method: 'POST', ...jsonString('no-such-user-zz') });
    expect(unknown.status).toBe(400);
    expect(unknown.json.type).toBe('urn:flowboard:problem:invalid-reference');
    expect((await inviteTo(owner, project.id, role, bob.email)).status).toBe(409);
  });

  it('applies to accepting an invite that would add a collaborator', async () => {
    // Room for two: bob and an address invited to two projects; ann accepts one with her own key (the token
    // suffices), the address stays invited to the other, so ann would be the third.
    await setAccountLimits(owner.id, { collaboratorLimit: 2 });
    const other = await createProject(owner.key);
    const shared = `shared-${uniqueSuffix()}@example.test`;
    const first = await inviteTo(owner, project.id, role, shared);
    expect(first.status).toBe(200);
    expect((await inviteTo(owner, other.id, await membersRoleOf(owner, other.id), shared)).status).toBe(200);
    const accepted = await api(`/api/v1/invites/${first.json.token}/accept`, {
      method: 'POST',
      key: ann.key,
    });
    expectPlanLimit(accepted, 2);
    // The invite survives the refusal, and goes through once the operator makes room.
    await setAccountLimits(owner.id, { collaboratorLimit: 3 });
    expect(
      (await api(`/api/v1/invites/${first.json.token}/accept`, { method: 'POST', key: ann.key })).status,
    ).toBe(200);
    expect((await account(owner.key)).collaboratorsUsed).toBe(3);
  });

  it('never overshoots: 20 concurrent invites against a limit of 5 → exactly 5 succeed, the rest 402', async () => {
    const racer = await signUp('race-owner');
    const p = await createProject(racer.key);
    const r = await membersRoleOf(racer, p.id);
    await setAccountLimits(racer.id, { collaboratorLimit: 5 });
    const results = await Promise.all(Array.from({ length: 20 }, () => inviteTo(racer, p.id, r)));
    const statuses = results.map((res) => res.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(5);
    expect(statuses.filter((s) => s === 402)).toHaveLength(15);
    for (const refused of results.filter((res) => res.status === 402)) expectPlanLimit(refused, 5);
    expect((await api(`/api/v1/projects/${p.id}/invites`, { key: racer.key })).json.totalItems).toBe(5);
    expect((await account(racer.key)).collaboratorsUsed).toBe(5);
  });
});

describe('the invites enrichment of projects (Admin only)', () => {
  it('lists pending invites for admins; others asking by name get 403; everything leaves it out', async () => {
    const owner = await signUp('enrich-owner');
    const project = await createProject(owner.key);
    const P = `/api/v1/projects/${project.id}`;
    const role = await membersRoleOf(owner, project.id);
    const sent = await inviteTo(owner, project.id, role);
    const callers = await accessLadder(owner, project.id);

    const own = await api(`${P}?with=invites`, { key: owner.key });
    expect(own.status).toBe(200);
    expect(Object.keys(own.json).at(-1)).toBe('invites');
    expect(own.json.invites).toEqual([
      {
        id: sent.json.id,
        createTime: sent.json.createTime,
        email: sent.json.email,
        token: sent.json.token,
        sender: { id: owner.id, name: expect.any(String), userName: owner.userName, email: owner.email },
        role: { id: role, name: 'Members' },
      },
    ]);
    const xml = await api(`${P}.xml?with=invites`, { key: owner.key });
    expect(xml.text).toContain(`<invites><invite><createTime>`);
    expect((await api(`${P}?with=everything`, { key: owner.key })).json).not.toHaveProperty('invites');
    const where = encodeURIComponent(`name:"${project.name}"`);
    const listed = await api(`/api/v1/projects?with=invites&where=${where}`, { key: owner.key });
    expect(listed.json.items[0].invites.map((i: { id: number }) => i.id)).toEqual([sent.json.id]);

    const matrix = await accessMatrix(callers, async (key) => [
      (await api(`${P}?with=invites`, { key })).status,
      (await api(`${P}?with=everything`, { key })).status,
      (await api(`/api/v1/projects?with=invites`, { key })).status,
    ]);
    expect(matrix).toEqual({
      anonymous: [401, 401, 401],
      stranger: [404, 404, 200], // a stranger's project list holds none of this project
      none: [403, 403, 403], // GET P needs Read
      read: [403, 200, 403],
      readwrite: [403, 200, 403],
      admin: [200, 200, 200],
    });
  });
});
