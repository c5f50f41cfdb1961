import { parseFilter } from '@flowboard/filter';
import { requirePositiveId } from '../domain/attachment';
import type { AttachmentRecord, AttachmentRepository } from './ports';

export type ListAttachments = (
  projectId: number,
  storyId: number,
  where?: string,
) => Promise<AttachmentRecord[]>;

/**
 * Attachments have no filterable property (docs/compat.md §4.2): `where` is parsed, and any term is a 400.
 */
export const ATTACHMENT_FILTER_PROPERTIES: readonly string[] = [];

/** A story's attachments by id; empty when it has none (the gateway has checked that the story exists). */
export function makeListAttachments(attachments: AttachmentRepository): ListAttachments {
  return async (projectId, storyId, where) => {
    const p = requirePositiveId('project_id', projectId);
    const s = requirePositiveId('story_id', storyId);
    // A blank filter is no filter; anything else names a property, and none exists (invalid-filter).
    parseFilter(where, ATTACHMENT_FILTER_PROPERTIES);
    return attachments.listByStory(p, s);
  };
}
