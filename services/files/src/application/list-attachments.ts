import { requirePositiveId } from '../domain/attachment';
import type { AttachmentRecord, AttachmentRepository } from './ports';

export type ListAttachments = (projectId: number, storyId: number) => Promise<AttachmentRecord[]>;

/** A story's attachments by id; empty when it has none (the gateway has checked that the story exists). */
export function makeListAttachments(attachments: AttachmentRepository): ListAttachments {
  return (projectId, storyId) =>
    attachments.listByStory(
      requirePositiveId('project_id', projectId),
      requirePositiveId('story_id', storyId),
    );
}
