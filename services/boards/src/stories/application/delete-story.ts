import { makeEvent, storyDeletedV1 } from '@flowboard/events';
import { DomainError } from '@flowboard/service-kit';
import { requirePositiveId } from '../../shared/domain/ids';
import type { StoriesStore } from './stories-store';

export interface DeleteStoryCommand {
  projectId: number;
  storyId: number;
  deletedBy: number;
  requestId?: string;
}

export type DeleteStory = (command: DeleteStoryCommand) => Promise<void>;

/**
 * Deletes a story; its tasks, comments, tag links, milestones and steps go with it (ON DELETE CASCADE). The
 * `boards.story-deleted.v1` event (files deletes the story's attachments) is written to the outbox in the same
 * transaction, so it is published exactly when the delete commits. `signal` wakes the outbox relay.
 */
export function makeDeleteStory(store: StoriesStore, signal: () => void = () => undefined): DeleteStory {
  return async ({ projectId: rawProjectId, storyId, deletedBy, requestId }) => {
    const projectId = requirePositiveId('project_id', rawProjectId);
    if (!Number.isSafeInteger(storyId) || storyId <= 0) throw new DomainError('NotFound', 'Story not found');
    await store.transaction(async (tx) => {
      if (!(await tx.stories.delete(projectId, storyId)))
        throw new DomainError('NotFound', 'Story not found');
      const event = makeEvent(storyDeletedV1, 'boards', {
        projectId,
        storyId,
        deletedBy,
        deletedAt: new Date().toISOString(),
      });
      await tx.outbox.enqueue({
        id: event.id,
        topic: storyDeletedV1.topic,
        // The project id: a project's story and project events stay in order on one partition.
        key: String(projectId),
        payload: event,
        headers: requestId ? { 'x-request-id': requestId } : {},
      });
    });
    signal();
  };
}
