import { DomainError } from '@flowboard/service-kit';
import { inviteDto, projectDto } from '@flowboard/representation';
import { pageOf } from '../../wire/page';
import type { Call } from '../call';
import { invalidField, optionalReference, requiredString } from '../../wire/fields';
import { empty, page, resource, type Reply } from '../../wire/respond';
import type { RouteDeps } from './deps';
import { rejectWhere } from './no-filter';
import { del, get, post, resourceOperations } from '../operation';
import { P, V1 } from './paths';

/**
 * Invites have no enrichments (`with=everything` is accepted) and no filter properties (docs/compat.md §4.2).
 */
const noEnrichments = (call: Call) => call.enrichments({ names: [] });

export function inviteHandlers({ membership, access }: RouteDeps) {
  return {
    /**
     * Body `{email, role}`; `role` is an id, a numeric string or `{id}` of a role of this project. A pending
     * invite counts against the account's collaborator limit: over it, 402 `plan-limit` (after 400 and 409).
     */
    async create(call: Call): Promise<Reply> {
      const fields = (await call.body()).object();
      const email = requiredString(fields, 'email');
      const role = optionalReference(fields, 'role', { byName: false });
      if (!role || !('id' in role)) throw invalidField("Field 'role' is required.");
      const { invite } = await membership.createInvite({
        project_id: call.project.projectId,
        email,
        role_id: role.id,
      });
      if (!invite) throw new DomainError('Internal', 'CreateInvite returned no invite');
      return resource('invite', inviteDto(invite));
    },

    /** Pending invites only (expired ones are gone from the API), id order. */
    async list(call: Call): Promise<Reply> {
      noEnrichments(call);
      rejectWhere(call);
      const paging = call.paging();
      const { invites } = await membership.listInvites({ project_id: call.project.projectId });
      return page('invite', pageOf(invites.map(inviteDto), paging));
    },

    async get(call: Call): Promise<Reply> {
      noEnrichments(call);
      const { invite } = await membership.getInvite({
        project_id: call.project.projectId,
        invite_id: call.id('inviteId'),
      });
      if (!invite) throw new DomainError('Internal', 'GetInvite returned no invite');
      return resource('invite', inviteDto(invite));
    },

    async delete(call: Call): Promise<Reply> {
      await membership.deleteInvite({ project_id: call.project.projectId, invite_id: call.id('inviteId') });
      return empty();
    },

    /**
     * `POST /api/v1/invites/{token}/accept` (docs/compat.md §6): any valid key; the caller joins the invite's
     * role. The caller's access to that project changed, so its cached access decisions go. 402 when joining
     * would add a collaborator over the limit (see docs/design.md, accounts).
     */
    async accept(call: Call): Promise<Reply> {
      noEnrichments(call);
      const { project } = await membership.acceptInvite({ token: call.text('token') });
      if (!project) throw new DomainError('Internal', 'AcceptInvite returned no project');
      await access.forgetProject(project.id);
      return resource('project', projectDto(project));
    },
  };
}

/** This resource's operations, each declared once: the router and the OpenAPI document are built from them. */
export const inviteOperations = resourceOperations('Invites', 'administration', inviteHandlers, [
  get(`${P}/invites`, 'listInvites', 'List invites', {
    cursor: true,
    access: 'Admin',
    ok: { page: 'Invite' },
    handler: 'list',
  }),
  post(`${P}/invites`, 'createInvite', 'Invite someone', {
    access: 'Admin',
    body: 'InviteCreate',
    ok: { one: 'Invite' },
    errors: [402, 409],
    description:
      'Sends an e-mail with the token (asynchronously). A pending invite counts as a collaborator.',
    handler: 'create',
  }),
  get(`${P}/invites/:inviteId`, 'getInvite', 'Get an invite', {
    access: 'Admin',
    ok: { one: 'Invite' },
    handler: 'get',
  }),
  del(`${P}/invites/:inviteId`, 'deleteInvite', 'Delete an invite', {
    access: 'Admin',
    ok: 'empty',
    handler: 'delete',
  }),
  post(`${V1}/invites/:token(text)/accept`, 'acceptInvite', 'Accept an invite', {
    access: 'key',
    group: 'account',
    reachesNewProject: true,
    with: 'none',
    ok: { one: 'Project' },
    errors: [402],
    addition: true,
    description:
      "Adds the caller to the invite's role and deletes the invite; answers the project. Unknown or " +
      'expired \u2192 404.',
    handler: 'accept',
  }),
]);
