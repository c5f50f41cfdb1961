import { InvalidEventError, inviteCreatedV1, parseEvent, type InviteCreatedV1 } from '@flowboard/events';
import { PermanentMessageError, RetryLaterError, type IncomingMessage } from '@flowboard/messaging';
import type { Logger } from '@flowboard/service-kit';
import type { RenderedEmail } from '../email/invite-email';
import type { MailSender } from '../email/transport';
import type { DedupeStore } from './dedupe';
import { classifySendError } from './retry-policy';

export interface InviteCreatedHandlerDeps {
  dedupe: DedupeStore;
  mailer: MailSender;
  render(invite: InviteCreatedV1): RenderedEmail;
  logger: Logger;
}

/**
 * Thrown while another delivery of the same event holds its claim (mid-send, or its notifier died mid-send): the
 * partition waits until the claim expires, then tries again. A wait by design, so the notifier stays Ready.
 */
export class SendInProgressError extends RetryLaterError {
  constructor(eventId: string, heldForMs: number) {
    super(
      `invite e-mail for event ${eventId} is being sent by another delivery`,
      heldForMs + CLAIM_EXPIRY_SLACK_MS,
    );
    this.name = 'SendInProgressError';
  }
}

/** Past the claim's expiry, so the retry finds it gone rather than a few ms left. */
const CLAIM_EXPIRY_SLACK_MS = 200;

/**
 * validate → dedupe → render → send. Throwing makes the consumer retry the message (nothing is skipped);
 * PermanentMessageError dead-letters it. Logs carry event and invite ids, never addresses or tokens.
 */
export function createInviteCreatedHandler(deps: InviteCreatedHandlerDeps) {
  return async (message: IncomingMessage): Promise<void> => {
    let event;
    try {
      event = parseEvent(inviteCreatedV1, message.value);
    } catch (err) {
      if (err instanceof InvalidEventError) throw new PermanentMessageError(err.message);
      throw err;
    }
    const log = deps.logger.child({
      eventId: event.id,
      inviteId: event.data.inviteId,
      projectId: event.data.projectId,
    });

    const claim = await deps.dedupe.claim(event.id);
    if (claim === 'done') {
      log.info('invite e-mail already sent; skipping the duplicate');
      return;
    }
    if (claim === 'in-progress')
      throw new SendInProgressError(event.id, await deps.dedupe.claimHeldForMs(event.id));

    try {
      await deps.mailer.send({
        to: event.data.email,
        ...deps.render(event.data),
        idempotencyKey: `invite.${event.id}`,
      });
    } catch (err) {
      await deps.dedupe
        .release(event.id)
        .catch((releaseErr: unknown) =>
          log.error(
            { err: releaseErr },
            'could not release the dedupe claim; a retry waits for it to expire',
          ),
        );
      const classified = classifySendError(err);
      log.warn(
        { reason: classified.message, permanent: classified instanceof PermanentMessageError },
        'invite e-mail not sent',
      );
      throw classified;
    }

    // The e-mail is out. If remembering that fails, do not throw: a retry would send it again.
    await deps.dedupe
      .complete(event.id)
      .catch((err: unknown) => log.error({ err }, 'could not mark the invite e-mail as sent'));
    log.info('invite e-mail sent');
  };
}
