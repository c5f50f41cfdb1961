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
  type SignedUp,
} from './support';

/**
 * Invites after creation (docs/compat.md §5.7, §6): list/get/delete (Admin), accept (any key), expiry via
 * 404.
 */
jest.setTimeout(60_000);

let owner: SignedUp;
let project: { id: number; name: string };
let membersRoleId: number;
const P = () => `/api/v1/projects/${project.id}`;

const invite = async (email: string) => {
  const res = await api(`${P()}/invites`, {
    method: 'POST',
    key: owner.key,
    body: { email, role: membersRoleId },
  });
  if (res.status !== 200) throw new Error(`invite failed: ${res.status} ${res.text}`);
  return res.json as { id: number; token: string; email: string };
};

beforeAll(async () => {
  owner = await signUp('inv-owner');
  project = await createProject(owner.key);
  const roles = await api(`${P()}/roles?where=name:Members`, { key: owner.key });
  membersRoleId = roles.json.items[0].id;
});

describe('invites', () => {
  it('lists, gets and deletes invites in JSON and XML', async () => {
    const a = await invite(`a-${Date.now()}@example.test`);
    const list = await api(`${P()}/invites`, { key: owner.key });
    expect(list.status).toBe(200);
    expect(list.json.items.map((i: { id: number }) => i.id)).toContain(a.id);
    const xml = await api(`${P()}/invites/${a.id}`, { key: owner.key, headers: XML_HEADERS });
    expect(xml.status).toBe(200);
    expect(childNames(xml.text, 'invite')).toEqual(
      sorted(['id', 'createTime', 'email', 'token', 'sender', 'role']),
    );
    const xmlPage = await api(`${P()}/invites.xml`, { key: owner.key });
    expect(childNames(xmlPage.text, 'invites')).toEqual(
      sorted(['page', 'pageSize', 'totalPages', 'totalItems', 'items']),
    );
    expect((await api(`${P()}/invites?where=email:x`, { key: owner.key })).status).toBe(400);

    const del = await api(`${P()}/invites/${a.id}`, { method: 'DELETE', key: owner.key });
    expect(del.status).toBe(200);
    expect((await api(`${P()}/invites/${a.id}`, { key: owner.key })).status).toBe(404);
  });

  it('accept makes the invitee a member who can read the project; the token works once', async () => {
    const invitee = await signUp('invitee');
    expect((await api(P(), { key: invitee.key })).status).toBe(404); // cached "not a member" would be wrong later
    const { token } = await invite(`someone-${Date.now()}@example.test`);
    const accepted = await api(`/api/v1/invites/${token}/accept`, { method: 'POST', key: invitee.key });
    expect(accepted.status).toBe(200);
    expect(accepted.json).toMatchObject({ id: project.id, name: project.name, owner: { id: owner.id } });
    const read = await api(P(), { key: invitee.key });
    expect(read.status).toBe(200);
    expect((await api(`${P()}/stories`, { key: invitee.key })).status).toBe(200);
    const again = await api(`/api/v1/invites/${token}/accept.xml`, { method: 'POST', key: invitee.key });
    expect(again.status).toBe(404);
    expect(again.text).toContain('<status>404</status>');
    expect(
      (await api(`/api/v1/invites/${'0'.repeat(32)}/accept`, { method: 'POST', key: invitee.key })).status,
    ).toBe(404);
    expect((await api(`/api/v1/invites/${token}/accept`, { method: 'POST' })).status).toBe(401);
  });

  it('a second invite for the same address while the first is pending is 409 conflict; nothing is added', async () => {
    const email = `dup-${uniqueSuffix()}@example.test`;
    const first = await invite(email);
    const pending = async () =>
      (await api(`${P()}/invites?pageSize=1000`, { key: owner.key })).json.items
        .filter((i: { email: string }) => i.email === email)
        .map((i: { id: number }) => i.id);
    expect(await pending()).toEqual([first.id]);

    const dup = await api(`${P()}/invites`, {
      method: 'POST',
      key: owner.key,
      body: { email, role: membersRoleId },
    });
    expect(dup.status).toBe(409);
    expect(dup.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
    expect(dup.json).toMatchObject({
      type: 'urn:flowboard:problem:conflict',
      status: 409,
      requestId: dup.headers.get('x-request-id'),
    });
    const dupXml = await api(`${P()}/invites.xml`, {
      method: 'POST',
      key: owner.key,
      body: { email, role: membersRoleId },
    });
    expect(dupXml.status).toBe(409);
    expect(dupXml.text).toContain('<type>urn:flowboard:problem:conflict</type>');
    expect(await pending()).toEqual([first.id]);

    // Per project: the same address may be invited to another project meanwhile.
    const other = await createProject(owner.key);
    const otherRole = (await api(`/api/v1/projects/${other.id}/roles?where=name:Members`, { key: owner.key }))
      .json.items[0].id;
    const elsewhere = await api(`/api/v1/projects/${other.id}/invites`, {
      method: 'POST',
      key: owner.key,
      body: { email, role: otherRole },
    });
    expect(elsewhere.status).toBe(200);

    // Once the first is no longer pending, the address is free again.
    expect((await api(`${P()}/invites/${first.id}`, { method: 'DELETE', key: owner.key })).status).toBe(200);
    const again = await invite(email);
    expect(await pending()).toEqual([again.id]);
  });

  it('access matrix: Admin for list, create, get and delete; any key for accept', async () => {
    const { id } = await invite(`m-${Date.now()}@example.test`);
    const callers = await accessLadder(owner, project.id);
    const matrix = await accessMatrix(callers, async (key) => [
      (await api(`${P()}/invites`, { key })).status,
      // An empty body: 400 shows the access check passed without creating anything.
      (await api(`${P()}/invites`, { key, method: 'POST', body: {} })).status,
      (await api(`${P()}/invites/${id}`, { key })).status,
      (await api(`${P()}/invites/999999999`, { key, method: 'DELETE' })).status,
      // An unknown token: 404 for any valid key.
      (await api(`/api/v1/invites/${'0'.repeat(32)}/accept`, { key, method: 'POST' })).status,
    ]);
    expect(matrix).toEqual({
      anonymous: [401, 401, 401, 401, 401],
      stranger: [404, 404, 404, 404, 404],
      none: [403, 403, 403, 403, 404],
      read: [403, 403, 403, 403, 404],
      readwrite: [403, 403, 403, 403, 404],
      admin: [200, 400, 200, 404, 404],
    });
  });
});
