import { body, email, int, pageSchema, ref, resource, str, timestamp, type ResourceSchemas } from '../schema';

/** E-mail invitations to a role (invites.routes.ts). */
export const inviteSchemas: ResourceSchemas = {
  responses: {
    Invite: resource('invite', ['id', 'createTime', 'email', 'token', 'sender', 'role'], {
      id: int(),
      createTime: timestamp,
      email: str(),
      token: str('Opaque; the invited person accepts with it.'),
      sender: ref('UserRef'),
      role: ref('NamedRef'),
    }),
  },
  pages: { InvitePage: pageSchema('Invite', 'invites') },
  requests: { InviteCreate: body('invite', { email, role: ref('ItemReference') }, ['email', 'role']) },
};
