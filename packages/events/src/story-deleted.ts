import { z } from 'zod';
import { defineEvent } from './envelope';

/**
 * A story was deleted in boards (its tasks, comments and tag links went in the same transaction). Files consumes
 * it to delete the story's attachments; the message key is the project id, so a project's events stay in order.
 */
export const storyDeletedV1 = defineEvent(
  'boards.story-deleted',
  1,
  z.object({
    projectId: z.number().int().positive(),
    storyId: z.number().int().positive(),
    deletedBy: z.number().int().positive(),
    deletedAt: z.iso.datetime(),
  }),
);
export type StoryDeletedV1 = z.infer<typeof storyDeletedV1.data>;
