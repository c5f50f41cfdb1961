import { InvalidEventError, parseEvent, projectDeletedV1, storyDeletedV1 } from '@flowboard/events';
import { PermanentMessageError, type IncomingMessage } from '@flowboard/messaging';
import type { Logger } from '@flowboard/service-kit';
import type { PurgeAttachments } from '../application/purge-attachments';

/** The topics files consumes: deletions elsewhere whose attachments must go too. */
export const DELETION_TOPICS = [projectDeletedV1.topic, storyDeletedV1.topic];

/**
 * project-deleted → all of the project's attachments; story-deleted → the story's. Purging is idempotent, so a
 * redelivery (at-least-once) is harmless and no dedupe store is needed. An unreadable event is dead-lettered;
 * any other failure is thrown, and the partition waits and retries.
 */
export function createDeletionEventsHandler(deps: { purge: PurgeAttachments; logger: Logger }) {
  return async (message: IncomingMessage): Promise<void> => {
    try {
      if (message.topic === projectDeletedV1.topic) {
        const event = parseEvent(projectDeletedV1, message.value);
        const { deleted } = await deps.purge(event.data.projectId);
        deps.logger.info(
          { eventId: event.id, projectId: event.data.projectId, deleted },
          'project deleted: its attachments are removed',
        );
      } else if (message.topic === storyDeletedV1.topic) {
        const event = parseEvent(storyDeletedV1, message.value);
        const { projectId, storyId } = event.data;
        const { deleted } = await deps.purge(projectId, storyId);
        deps.logger.info(
          { eventId: event.id, projectId, storyId, deleted },
          'story deleted: its attachments are removed',
        );
      } else {
        throw new PermanentMessageError(`unexpected topic ${message.topic}`);
      }
    } catch (err) {
      if (err instanceof InvalidEventError) throw new PermanentMessageError(err.message);
      throw err;
    }
  };
}
