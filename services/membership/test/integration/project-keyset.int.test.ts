import { status } from '@grpc/grpc-js';
import type { membership } from '@flowboard/proto';
import { uniqueSuffix } from '@flowboard/testing';
import { codeOf, startHarness, type Harness } from './harness';

/** ListProjects by keyset (README "Sync: cursors and updatedSince"), on real PostgreSQL through the gRPC server. */
jest.setTimeout(60_000);

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

type Listed = membership.ListProjectsResponse__Output;

const newUser = async (prefix: string) => (await h.signUp(prefix)).user;

const newProject = async (ownerId: number, name: string) =>
  (await h.call<membership.CreateProjectResponse__Output>('CreateProject', { name }, ownerId)).project!;

/** A page of `userId`'s projects after `afterId`, `request` adding filters and enrichments. */
const after = (userId: number, afterId: number, pageSize: number, request: object = {}) =>
  h.call<Listed>('ListProjects', { page_size: pageSize, keyset: { after_id: afterId }, ...request }, userId);

const idsOf = (res: Listed) => res.projects.map((e) => e.project!.id);

/** Every page of a keyset walk, following `more`; `between` runs after each page. */
async function walk(
  userId: number,
  pageSize: number,
  request: object = {},
  between: (pageNumber: number) => Promise<void> = async () => {},
): Promise<{ ids: number[]; pages: Listed[] }> {
  const pages: Listed[] = [];
  const ids: number[] = [];
  for (;;) {
    const page = await after(userId, ids.at(-1) ?? 0, pageSize, request);
    pages.push(page);
    ids.push(...idsOf(page));
    if (!page.keyset!.more) return { ids, pages };
    await between(pages.length);
  }
}

describe('ListProjects by keyset', () => {
  it("answers the caller's projects in id order after after_id, page_size of them, and whether more follow", async () => {
    const gob = await newUser('gob');
    const lucille = await newUser('lucille');
    const [a, b] = [await newProject(gob.id, 'A'), await newProject(gob.id, 'B')];
    // A project gob is in only through a role, between his own: listed in its id order.
    const theirs = await newProject(lucille.id, 'Lucille’s');
    const { roles } = await h.call<membership.ListRolesResponse__Output>(
      'ListRoles',
      { project_id: theirs.id, where: 'name:Members' },
      lucille.id,
    );
    await h.call(
      'AddRoleMember',
      { project_id: theirs.id, role_id: roles[0]!.id, user: { id: gob.id } },
      lucille.id,
    );
    const [c, d] = [await newProject(gob.id, 'C'), await newProject(gob.id, 'D')];
    await newProject(lucille.id, 'not gob’s');
    const mine = [a.id, b.id, theirs.id, c.id, d.id];

    const first = await after(gob.id, 0, 2);
    expect(idsOf(first)).toEqual(mine.slice(0, 2));
    expect(first).toMatchObject({ total_items: 5, keyset: { more: true } });
    expect(first.projects[0]!.project).toMatchObject({ id: a.id, name: 'A', owner: { id: gob.id } });
    const second = await after(gob.id, b.id, 2);
    expect(idsOf(second)).toEqual([theirs.id, c.id]);
    expect(second.keyset).toEqual({ more: true });
    const last = await after(gob.id, c.id, 2);
    expect(idsOf(last)).toEqual([d.id]);
    expect(last.keyset).toEqual({ more: false });
    // A page ending exactly at the last project: the extra one looked for is what says there is no more.
    const exact = await after(gob.id, theirs.id, 2);
    expect(idsOf(exact)).toEqual([c.id, d.id]);
    expect(exact.keyset).toEqual({ more: false });
    // After the last one: empty, and still answered as a keyset page (the gateway tells an older release by it).
    const empty = await after(gob.id, d.id, 2);
    expect(empty).toMatchObject({ projects: [], total_items: 5, keyset: { more: false } });

    // `page` is ignored; page_size 0 is the ordinary page's default (100).
    expect(idsOf(await after(gob.id, 0, 2, { page: 3 }))).toEqual(mine.slice(0, 2));
    const whole = await after(gob.id, 0, 0);
    expect(idsOf(whole)).toEqual(mine);
    expect(whole.keyset).toEqual({ more: false });
    expect((await walk(gob.id, 2)).ids).toEqual(mine);

    // Without a keyset: the ordinary page, and no keyset answer.
    const ordinary = await h.call<Listed>('ListProjects', { page: 2, page_size: 2 }, gob.id);
    expect(idsOf(ordinary)).toEqual([theirs.id, c.id]);
    expect(ordinary.keyset).toBeNull();

    await expect(codeOf(after(gob.id, -1, 2))).resolves.toBe(status.INVALID_ARGUMENT);
  });

  it('applies where, only_project_ids and the enrichments as the ordinary page does', async () => {
    const buster = await newUser('buster');
    const lucille = await newUser('lucille');
    const name = `Army ${uniqueSuffix()}`;
    const [one, other, two] = [
      await newProject(buster.id, name),
      await newProject(buster.id, 'Other'),
      await newProject(buster.id, name.toUpperCase()), // the filter ignores case
    ];
    const notAdmin = await newProject(lucille.id, name);
    const { roles } = await h.call<membership.ListRolesResponse__Output>(
      'ListRoles',
      { project_id: notAdmin.id, where: 'name:Members' },
      lucille.id,
    );
    await h.call(
      'AddRoleMember',
      { project_id: notAdmin.id, role_id: roles[0]!.id, user: { id: buster.id } },
      lucille.id,
    );

    const where = { where: `name:"${name}"` };
    const filtered = await walk(buster.id, 1, where);
    expect(filtered.ids).toEqual([one.id, two.id, notAdmin.id]);
    expect(filtered.pages.map((p) => p.total_items)).toEqual([3, 3, 3]);
    // An after_id that the filter leaves out works as well.
    expect(idsOf(await after(buster.id, other.id, 10, where))).toEqual([two.id, notAdmin.id]);

    const only = { only_project_ids: [other.id, notAdmin.id] };
    const limited = await after(buster.id, 0, 1, only);
    expect(idsOf(limited)).toEqual([other.id]);
    expect(limited).toMatchObject({ total_items: 2, keyset: { more: true } });
    expect(idsOf(await after(buster.id, other.id, 1, only))).toEqual([notAdmin.id]);

    const enriched = await after(buster.id, 0, 1, { ...where, include_roles: true, include_members: true });
    expect(enriched.projects[0]!.roles.map((r) => r.name)).toEqual(['Administrators', 'Members']);
    expect(enriched.projects[0]!.members.map((u) => u.id)).toEqual([buster.id]);
    // Invites need admin access to every project of the page: a page without lucille's project has them...
    const invites = { ...where, include_invites: true };
    expect((await after(buster.id, 0, 2, invites)).projects.map((e) => e.invites)).toEqual([[], []]);
    // ...a page with it is refused.
    await expect(codeOf(after(buster.id, two.id, 2, invites))).resolves.toBe(status.PERMISSION_DENIED);
  });

  it('stays exact while projects are created and deleted between pages', async () => {
    const maeby = await newUser('maeby');
    const projects = [];
    for (const n of [1, 2, 3, 4, 5, 6]) projects.push(await newProject(maeby.id, `P${n}`));
    const [p1, p2, p3, p4, p5, p6] = projects.map((p) => p.id) as [
      number,
      number,
      number,
      number,
      number,
      number,
    ];
    const remove = (id: number) => h.call('DeleteProject', { project_id: id }, maeby.id);
    const created: number[] = [];

    const { ids, pages } = await walk(maeby.id, 2, {}, async (pageNumber) => {
      if (pageNumber === 1) {
        // One project already seen and one not yet seen go; a new one comes (a later id: at the end).
        await remove(p1);
        await remove(p3);
        created.push((await newProject(maeby.id, 'P7')).id);
      } else if (pageNumber === 2) {
        await remove(p6);
        created.push((await newProject(maeby.id, 'P8')).id);
      }
    });

    // Every project that existed for the whole walk exactly once, in id order; none removed before its page.
    expect(ids).toEqual([p1, p2, p4, p5, ...created]);
    expect(pages.map((p) => p.total_items)).toEqual([6, 5, 5]); // the list as it is at each page
  });
});
