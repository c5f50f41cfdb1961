import { InvalidEventError, parseEvent, projectDeletedV1 } from '@flowboard/events';
import { PermanentMessageError, type IncomingMessage } from '@flowboard/messaging';
import type { Logger } from '@flowboard/service-kit';
import type { DeleteProjectBoard } from '../application/delete-project-board';

/**
 * `membership.project-deleted.v1` → the project's board goes. A message that is not a valid event can never
 * succeed and is dead-lettered; a database failure throws, so the consumer retries it (nothing is skipped).
 * Redeliveries are harmless: the delete is idempotent.
 */
export function createProjectDeletedHandler(deps: {
  deleteProjectBoard: DeleteProjectBoard;
  logger: Logger;
}) {
  return async (message: IncomingMessage): Promise<void> => {
    let event;
    try {
      event = parseEvent(projectDeletedV1, message.value);
    } catch (err) {
      if (err instanceof InvalidEventError) throw new PermanentMessageError(err.message);
      throw err;
    }
    const { projectId } = event.data;
    const { firstTime } = await deps.deleteProjectBoard(projectId, event.id);
    deps.logger.info(
      { eventId: event.id, projectId, requestId: message.headers['x-request-id'] },
      firstTime ? 'deleted the board of a deleted project' : 'project already deleted; nothing to do',
    );
  };
}
