import { z } from 'zod';
import { defineEvent } from './envelope';

/**
 * A project was deleted in membership (its roles, members and invites went in the same transaction). Boards and
 * files consume it to delete the project's phases, stories and stored files; the message key is the project id.
 */
export const projectDeletedV1 = defineEvent(
  'membership.project-deleted',
  1,
  z.object({
    projectId: z.number().int().positive(),
    projectName: z.string(),
    ownerId: z.number().int().positive(),
    deletedBy: z.number().int().positive(),
    deletedAt: z.iso.datetime(),
  }),
);
export type ProjectDeletedV1 = z.infer<typeof projectDeletedV1.data>;
