import {
  InvalidEventError,
  parseEvent,
  projectDeletedV1,
  readResourceChanged,
  resourceChangedV1,
} from '@flowboard/events';
import { PermanentMessageError, type IncomingMessage } from '@flowboard/messaging';
import type { Logger } from '@flowboard/service-kit';
import type { ForgetProject } from '../application/forget-project';
import type { EventIngestion } from '../application/ingest-event';

/** The topics webhooks consumes: every service's change events, and project deletions. */
export const WEBHOOK_TOPICS = [resourceChangedV1.topic, projectDeletedV1.topic];

/**
 * resource-changed → stored with its deliveries (idempotent by event id, so a redelivered message makes nothing
 * twice), or skipped when its type is one this release doesn't know (a newer producer's: the type is an open enum,
 * and no webhook can subscribe to it yet); project-deleted → the project's webhooks go (idempotent). The consumer commits the offset only after
 * this resolves. An unreadable event is dead-lettered (`<group>-dlq`); any other failure is thrown, and the
 * partition waits and retries. Before each batch, `lookAhead` asks once which of its projects have webhooks: the
 * change events are keyed by their project (the events contract), and ingestion checks each event's own project.
 */
export function createResourceEventsHandler(deps: {
  ingestion: EventIngestion;
  forgetProject: ForgetProject;
  logger: Logger;
}) {
  const lookAhead = async (messages: IncomingMessage[]): Promise<void> => {
    const projectIds = messages
      .filter((m) => m.topic === resourceChangedV1.topic && m.key !== null && /^[1-9]\d{0,15}$/.test(m.key))
      .map((m) => Number(m.key));
    await deps.ingestion.lookAhead(projectIds);
  };
  const handle = async (message: IncomingMessage): Promise<void> => {
    try {
      if (message.topic === resourceChangedV1.topic) {
        const read = readResourceChanged(message.value);
        if ('unknownType' in read) {
          deps.logger.debug(
            { type: read.unknownType },
            'event of a type this release does not know: skipped',
          );
          return;
        }
        const { event } = read;
        const created = await deps.ingestion.ingest(event);
        if (created > 0) {
          deps.logger.debug(
            {
              eventId: event.id,
              projectId: event.data.projectId,
              type: event.data.type,
              deliveries: created,
            },
            'event queued for webhooks',
          );
        }
      } else if (message.topic === projectDeletedV1.topic) {
        const event = parseEvent(projectDeletedV1, message.value);
        const removed = await deps.forgetProject(event.data.projectId);
        // Most projects have no webhooks (and a new group reads every past deletion): only removals are news.
        (removed > 0 ? deps.logger.info : deps.logger.debug).call(
          deps.logger,
          { eventId: event.id, projectId: event.data.projectId, webhooks: removed },
          'project deleted: its webhooks are removed',
        );
      } else {
        throw new PermanentMessageError(`unexpected topic ${message.topic}`);
      }
    } catch (err) {
      if (err instanceof InvalidEventError) throw new PermanentMessageError(err.message);
      throw err;
    }
  };
  return { handle, lookAhead };
}
