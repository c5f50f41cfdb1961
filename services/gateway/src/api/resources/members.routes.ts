import { DomainError } from '@flowboard/service-kit';
import { pageOf } from '../../wire/page';
import { userDto } from '@flowboard/representation';
import type { Call } from '../call';
import { empty, page, resource, type Reply } from '../../wire/respond';
import type { RouteDeps } from './deps';
import { userRef, userRefFromPath } from './user-refs';
import { del, get, post, resourceOperations } from '../operation';
import { P } from './paths';

/**
 * `P/members` (docs/compat.md §5.2): full user records. Writes drop the project's cached access decisions, so
 * a removed member gets 404 on their very next request.
 */
export function memberHandlers({ membership, access }: RouteDeps) {
  const noEnrichments = (call: Call) => call.enrichments({ names: [] });

  return {
    async list(call: Call): Promise<Reply> {
      noEnrichments(call);
      const paging = call.paging();
      const { members } = await membership.listProjectMembers({
        project_id: call.project.projectId,
        where: call.query.get('where') ?? '',
      });
      return page('user', pageOf(members.map(userDto), paging));
    },

    /** `{user}` is an id or a username; not a member → 404. */
    async get(call: Call): Promise<Reply> {
      noEnrichments(call);
      const { user } = await membership.getProjectMember({
        project_id: call.project.projectId,
        user: userRefFromPath(call.text('user')),
      });
      if (!user) throw new DomainError('Internal', 'GetProjectMember returned no user');
      return resource('user', userDto(user));
    },

    /**
     * Body: one user reference (`42`, `"bob"` or an object); an existing member is a no-op. Answers the page.
     * A new collaborator over the account's limit: 402 `plan-limit` (membership decides).
     */
    async add(call: Call): Promise<Reply> {
      const user = userRef((await call.body()).value());
      noEnrichments(call);
      const paging = call.paging();
      const projectId = call.project.projectId;
      try {
        const { members } = await membership.addProjectMember({ project_id: projectId, user });
        return page('user', pageOf(members.map(userDto), paging));
      } finally {
        await access.forgetProject(projectId);
      }
    },

    async remove(call: Call): Promise<Reply> {
      const projectId = call.project.projectId;
      try {
        await membership.removeProjectMember({
          project_id: projectId,
          user: userRefFromPath(call.text('user')),
        });
      } finally {
        await access.forgetProject(projectId);
      }
      return empty();
    },
  };
}

/** This resource's operations, each declared once: the router and the OpenAPI document are built from them. */
export const memberOperations = resourceOperations('Projects and members', 'administration', memberHandlers, [
  get(`${P}/members`, 'listMembers', 'List members', {
    cursor: true,
    access: 'Read',
    group: 'any',
    where: 'user',
    ok: { page: 'User' },
    handler: 'list',
  }),
  post(`${P}/members`, 'addMember', 'Add a member', {
    access: 'Admin',
    body: 'UserReference',
    ok: { page: 'User' },
    errors: [402],
    description: 'The user joins the project and its "Members" role, if any. Answers the members page.',
    handler: 'add',
  }),
  get(`${P}/members/:user(text)`, 'getMember', 'Get a member', {
    access: 'Read',
    group: 'any',
    ok: { one: 'User' },
    handler: 'get',
  }),
  del(`${P}/members/:user(text)`, 'removeMember', 'Remove a member', {
    access: 'Admin',
    ok: 'empty',
    errors: [409],
    description: 'Removes the user from the project and all its roles; removing the owner \u2192 409.',
    handler: 'remove',
  }),
]);
