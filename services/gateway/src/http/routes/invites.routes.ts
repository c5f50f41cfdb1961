import { DomainError } from '@flowboard/service-kit';
import { inviteDto } from '../../representation/invite.dto';
import type { Call } from '../call';
import { invalidField, optionalReference, requiredString } from '../fields';
import { resource, type Reply } from '../respond';
import type { RouteDeps } from './deps';

export function inviteHandlers({ membership }: RouteDeps) {
  return {
    /** Body `{email, role}`; `role` is an id, a numeric string or `{id}` of a role of this project. */
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
  };
}
