import type { membership } from '@flowboard/proto';
import { DomainError } from '@flowboard/service-kit';
import { pageOf } from '../../wire/page';
import { roleDto, userDto } from '@flowboard/representation';
import type { Call } from '../call';
import type { EnrichmentVocabulary } from '../../wire/enrichments';
import { invalidField, optionalString, requiredString } from '../../wire/fields';
import { empty, page, resource, type Reply } from '../../wire/respond';
import type { RouteDeps } from './deps';
import { userRef, userRefFromPath } from './user-refs';
import { del, get, post, put, resourceOperations } from '../operation';
import { P } from './paths';

/** Roles have no enrichments (spec); `with=everything` is accepted, anything else is 400. */
const ROLE_ENRICHMENTS: EnrichmentVocabulary = { names: [] };

const ACCESS_NAMES: Readonly<Record<string, membership.Access>> = {
  none: 'ACCESS_NONE',
  read: 'ACCESS_READ',
  readwrite: 'ACCESS_READWRITE',
  admin: 'ACCESS_ADMIN',
};

/** `access` as the API spells it (ignoring case and blanks), or undefined when absent. */
function optionalAccess(fields: Record<string, unknown>): membership.Access | undefined {
  const raw = optionalString(fields, 'access');
  if (raw === undefined) return undefined;
  const access = ACCESS_NAMES[raw.trim().toLowerCase()];
  if (!access) throw invalidField("Field 'access' must be one of none, read, readwrite, admin.");
  return access;
}

const where = (call: Call) => call.query.get('where') ?? '';

/**
 * `P/roles...` (spec "Roles and members", docs/compat.md §5.7). Every write may change someone's access, so
 * it drops the project's cached access decisions before answering: the next request re-reads (revocation is
 * immediate, not after the cache TTL).
 */
export function roleHandlers({ membership, access }: RouteDeps) {
  const roleReply = (role: membership.Role__Output | null) => {
    if (!role) throw new DomainError('Internal', 'membership returned no role');
    return resource('role', roleDto(role), role.version);
  };
  const membersPage = (call: Call, members: membership.User__Output[]) =>
    page('user', pageOf(members.map(userDto), call.paging()));

  /** Runs a membership write, then forgets the project's cached access (also when the write failed midway). */
  async function write<T>(call: Call, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } finally {
      await access.forgetProject(call.project.projectId);
    }
  }

  return {
    async list(call: Call): Promise<Reply> {
      call.enrichments(ROLE_ENRICHMENTS);
      const paging = call.paging();
      const { roles } = await membership.listRoles({
        project_id: call.project.projectId,
        where: where(call),
      });
      return page('role', pageOf(roles.map(roleDto), paging));
    },

    async create(call: Call): Promise<Reply> {
      const fields = (await call.body()).object();
      const name = requiredString(fields, 'name');
      const roleAccess = optionalAccess(fields) ?? 'ACCESS_NONE';
      call.enrichments(ROLE_ENRICHMENTS);
      const { role } = await write(call, () =>
        membership.createRole({ project_id: call.project.projectId, name, access: roleAccess }),
      );
      return roleReply(role);
    },

    async get(call: Call): Promise<Reply> {
      call.enrichments(ROLE_ENRICHMENTS);
      const { role } = await membership.getRole({
        project_id: call.project.projectId,
        role_id: call.id('roleId'),
      });
      return roleReply(role);
    },

    async update(call: Call): Promise<Reply> {
      const projectId = call.project.projectId;
      const roleId = call.id('roleId');
      const fields = (await call.body()).object();
      const name = optionalString(fields, 'name');
      const roleAccess = optionalAccess(fields);
      call.enrichments(ROLE_ENRICHMENTS);
      const { role } = await write(call, () =>
        membership.updateRole({
          project_id: projectId,
          role_id: roleId,
          expected_version: call.expectedVersion(),
          ...(name === undefined ? {} : { name }),
          ...(roleAccess === undefined ? {} : { access: roleAccess }),
        }),
      );
      return roleReply(role);
    },

    async delete(call: Call): Promise<Reply> {
      await write(call, () =>
        membership.deleteRole({
          project_id: call.project.projectId,
          role_id: call.id('roleId'),
          expected_version: call.expectedVersion(),
        }),
      );
      return empty();
    },

    async listMembers(call: Call): Promise<Reply> {
      call.enrichments({ names: [] });
      call.paging();
      const { members } = await membership.listRoleMembers({
        project_id: call.project.projectId,
        role_id: call.id('roleId'),
        where: where(call),
      });
      return membersPage(call, members);
    },

    /** Body: one user reference (`42`, `"bob"`, `{id}`, `{userName}`). New collaborator over the limit: 402. */
    async addMember(call: Call): Promise<Reply> {
      const user = userRef((await call.body()).value());
      call.enrichments({ names: [] });
      call.paging();
      const { members } = await write(call, () =>
        membership.addRoleMember({ project_id: call.project.projectId, role_id: call.id('roleId'), user }),
      );
      return membersPage(call, members);
    },

    /** Body: an array of user references; the role's members become exactly these (402 as for addMember). */
    async setMembers(call: Call): Promise<Reply> {
      const users = (await call.body()).array().map((v) => userRef(v));
      call.enrichments({ names: [] });
      call.paging();
      const { members } = await write(call, () =>
        membership.setRoleMembers({ project_id: call.project.projectId, role_id: call.id('roleId'), users }),
      );
      return membersPage(call, members);
    },

    /** `{user}` is an id or a username; answers the remaining members (filter `where` applies). */
    async removeMember(call: Call): Promise<Reply> {
      const user = userRefFromPath(call.text('user'));
      call.paging();
      const { members } = await write(call, () =>
        membership.removeRoleMember({
          project_id: call.project.projectId,
          role_id: call.id('roleId'),
          user,
          where: where(call),
        }),
      );
      return membersPage(call, members);
    },
  };
}

/** This resource's operations, each declared once: the router and the OpenAPI document are built from them. */
export const roleOperations = resourceOperations('Roles', 'administration', roleHandlers, [
  get(`${P}/roles`, 'listRoles', 'List roles', {
    cursor: true,
    access: 'Read',
    where: 'role',
    ok: { page: 'Role' },
    handler: 'list',
  }),
  post(`${P}/roles`, 'createRole', 'Create a role', {
    access: 'Admin',
    body: 'RoleCreate',
    ok: { one: 'Role' },
    handler: 'create',
  }),
  get(`${P}/roles/:roleId`, 'getRole', 'Get a role', {
    access: 'Read',
    conditional: true,
    ok: { one: 'Role' },
    handler: 'get',
  }),
  put(`${P}/roles/:roleId`, 'updateRole', 'Update a role', {
    access: 'Admin',
    conditional: true,
    body: 'RoleUpdate',
    ok: { one: 'Role' },
    handler: 'update',
  }),
  del(`${P}/roles/:roleId`, 'deleteRole', 'Delete a role', {
    access: 'Admin',
    conditional: true,
    ok: 'empty',
    handler: 'delete',
  }),
  get(`${P}/roles/:roleId/members`, 'listRoleMembers', "List a role's members", {
    cursor: true,
    access: 'Read',
    where: 'user',
    ok: { page: 'User' },
    handler: 'listMembers',
  }),
  post(`${P}/roles/:roleId/members`, 'addRoleMember', 'Add a member to a role', {
    access: 'Admin',
    body: 'UserReference',
    ok: { page: 'User' },
    errors: [402],
    handler: 'addMember',
  }),
  put(`${P}/roles/:roleId/members`, 'setRoleMembers', "Set a role's members", {
    access: 'Admin',
    body: 'UserReferences',
    ok: { page: 'User' },
    errors: [402],
    handler: 'setMembers',
  }),
  del(`${P}/roles/:roleId/members/:user(text)`, 'removeRoleMember', 'Remove a member from a role', {
    access: 'Admin',
    ok: { page: 'User' },
    description: "Answers the page of the role's remaining members (not an empty body).",
    handler: 'removeMember',
  }),
]);
