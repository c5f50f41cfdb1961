import { actorKeyOf } from '@flowboard/service-kit';
import {
  resourceChangedMessage,
  resourceSubject,
  type OutboxMessage,
  type ResourceEventType,
} from '@flowboard/events';
import { toAttachmentMessage } from './attachment-message';
import type { AttachmentRecord } from './ports';

/**
 * An attachment's change as a `flowboard.resource-changed.v1` outbox message. The subject is its story (a
 * story's changes and those of what hangs off it reach a webhook in order); the resource is the attachment as
 * GetAttachment answers it, after the change (as it was, for a deletion).
 */
export const attachmentChanged = (
  type: Extract<ResourceEventType, `attachment.${string}`>,
  attachment: AttachmentRecord,
  actorId: number,
): OutboxMessage =>
  resourceChangedMessage('files', {
    projectId: attachment.projectId,
    actorId,
    ...actorKeyOf(actorId),
    type,
    subject: resourceSubject('story', attachment.storyId),
    // A proto message is a plain object; its interface just has no index signature.
    resource: toAttachmentMessage(attachment) as Record<string, unknown>,
  });

/** Wakes the outbox relay once a write with events has committed (it publishes them now, not later). */
export type OutboxSignal = () => void;
