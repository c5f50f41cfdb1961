import { exponentialBackoff, PermanentMessageError } from '@flowboard/messaging';

/** Error fields nodemailer sets on SMTP failures. */
interface SmtpError {
  code?: string;
  responseCode?: number;
  command?: string;
}

/**
 * Turns a failed send into the error the consumer acts on, without personal data: SMTP errors quote the
 * recipient's address in their message, and that message would reach the logs (ours and kafkajs').
 *
 * - The server refused this recipient or this message for good (5xx on RCPT TO / DATA): retrying cannot help,
 *   so the message is dead-lettered (PermanentMessageError).
 * - Anything else (connection refused, timeouts, 4xx, authentication): the mail server or our configuration
 *   is the problem, not the message; the error is retried, and the partition waits.
 */
export function classifySendError(error: unknown): Error {
  const e = (error ?? {}) as SmtpError;
  const code = typeof e.code === 'string' ? e.code : 'UNKNOWN';
  const status = typeof e.responseCode === 'number' ? e.responseCode : undefined;
  const summary = `sending the invite e-mail failed (${code}${status ? ` ${status}` : ''}${e.command ? ` on ${e.command}` : ''})`;
  const permanent =
    status !== undefined && status >= 500 && status < 600 && (code === 'EENVELOPE' || code === 'EMESSAGE');
  return permanent ? new PermanentMessageError(summary) : new Error(summary);
}

/**
 * How long a partition waits after a failed send before trying the message again: `initialMs`, doubling per
 * attempt up to `maxMs`, ±20 % jitter. No attempt limit: a mail server down for hours is waited out (the
 * partition holds its place, so nothing is lost), and readiness reports it meanwhile.
 */
export function sendRetryDelay(options: { initialMs: number; maxMs: number; random?: () => number }) {
  return exponentialBackoff({ ...options, maxMs: Math.max(options.maxMs, options.initialMs) });
}
