import pino, { type Logger } from 'pino';
import { currentContext } from './context';

export type { Logger } from 'pino';

/**
 * JSON logs on stdout, one line per event, tagged with the service and the current request's id.
 * Credentials and personal data are redacted wherever they might slip into a logged object.
 */
export function createLogger(service: string, level = 'info'): Logger {
  return pino({
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    mixin: () => {
      const ctx = currentContext();
      return ctx ? { requestId: ctx.requestId, userId: ctx.userId } : {};
    },
    redact: {
      paths: [
        'apiKey',
        'api_key',
        'token',
        'email',
        'password',
        '*.apiKey',
        '*.api_key',
        '*.token',
        '*.email',
        'req.headers.authorization',
        'req.headers["x-zen-apikey"]',
      ],
      censor: '[redacted]',
    },
  });
}
