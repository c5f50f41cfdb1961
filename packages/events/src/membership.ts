import { z } from 'zod';
import { defineEvent } from './envelope';

/** An invite was created; the notifier e-mails the accept token to the invitee. */
export const inviteCreatedV1 = defineEvent(
  'membership.invite-created',
  1,
  z.object({
    inviteId: z.number().int().positive(),
    projectId: z.number().int().positive(),
    projectName: z.string(),
    roleName: z.string(),
    email: z.email(),
    token: z.string().min(1),
    senderName: z.string(),
    expiresAt: z.iso.datetime(),
  }),
);
export type InviteCreatedV1 = z.infer<typeof inviteCreatedV1.data>;
