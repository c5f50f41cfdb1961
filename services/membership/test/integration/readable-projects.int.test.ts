import type { membership } from '@flowboard/proto';
import { startHarness, type Harness } from './harness';

/** ListReadableProjects (for /me/stories): the caller's projects where their effective access is read or better. */
jest.setTimeout(60_000);

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const newUser = async (prefix: string) => (await h.signUp(prefix)).user;

const newProject = async (ownerId: number, name: string) =>
  (await h.call<membership.CreateProjectResponse__Output>('CreateProject', { name }, ownerId)).project!;

async function joinRole(ownerId: number, projectId: number, userId: number, access: membership.Access) {
  const { role } = await h.call<membership.CreateRoleResponse__Output>(
    'CreateRole',
    { project_id: projectId, name: `role ${access}`, access },
    ownerId,
  );
  await h.call('AddRoleMember', { project_id: projectId, role_id: role!.id, user: { id: userId } }, ownerId);
}

describe('ListReadableProjects', () => {
  it('lists owned projects and those with a role above none, id order; never none-only or foreign ones', async () => {
    const alice = await newUser('alice');
    const bob = await newUser('bob');
    const writable = await newProject(alice.id, 'rw');
    const noneOnly = await newProject(alice.id, 'none');
    const readable = await newProject(alice.id, 'read');
    const own = await newProject(bob.id, 'own');
    const direct = await newProject(alice.id, 'direct member, no role');
    await newProject(alice.id, 'foreign');
    await joinRole(alice.id, writable.id, bob.id, 'ACCESS_READWRITE');
    await joinRole(alice.id, noneOnly.id, bob.id, 'ACCESS_NONE');
    await joinRole(alice.id, readable.id, bob.id, 'ACCESS_READ');
    await h.pool.query('INSERT INTO project_members (project_id, user_id) VALUES ($1, $2)', [
      direct.id,
      bob.id,
    ]);

    const { projects } = await h.call<membership.ListReadableProjectsResponse__Output>(
      'ListReadableProjects',
      {},
      bob.id,
    );
    expect(projects).toEqual(
      [writable, readable, own].map((p) => ({ id: p.id, name: p.name })).sort((a, b) => a.id - b.id),
    );
    // Every project bob is a member of, at any access, is still in ListProjects (the two lists differ on purpose).
    const all = await h.call<membership.ListProjectsResponse__Output>(
      'ListProjects',
      { where: '', page: 1, page_size: 100 },
      bob.id,
    );
    expect(all.total_items).toBe(5);
  });
});
