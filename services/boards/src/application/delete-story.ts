import { DomainError } from '@flowboard/service-kit';
import { requirePositiveId } from '../domain/ids';
import type { BoardsStore } from './ports';

export type DeleteStory = (projectId: number, storyId: number) => Promise<void>;

/** Deletes a story; its tasks, comments, tag links, milestones and steps go with it (ON DELETE CASCADE). */
// TODO(story-delete-attachments): publish a story-deleted event (outbox) for the files service.
export function makeDeleteStory(store: BoardsStore): DeleteStory {
  return async (rawProjectId, storyId) => {
    const projectId = requirePositiveId('project_id', rawProjectId);
    const deleted =
      Number.isSafeInteger(storyId) && storyId > 0 && (await store.stories.delete(projectId, storyId));
    if (!deleted) throw new DomainError('NotFound', 'Story not found');
  };
}
