import { context, isSpanContextValid, trace } from '@opentelemetry/api';
import pino, { type DestinationStream, type Logger } from 'pino';
import { currentContext } from './context';

export type { Logger } from 'pino';

/**
 * The active span's `trace_id` and `span_id` (the names OpenTelemetry's log data model and Grafana's trace links
 * use), so a log line leads to its trace. None outside a span, nor while tracing is off (no SDK: no active span).
 */
function traceFields(): { trace_id?: string; span_id?: string } {
  const span = trace.getSpan(context.active())?.spanContext();
  return span && isSpanContextValid(span) ? { trace_id: span.traceId, span_id: span.spanId } : {};
}

/**
 * JSON logs on stdout (or `destination`, for tests), one line per event, tagged with the service, the current
 * request's id and the active span's trace and span ids. Credentials and personal data are redacted wherever they
 * might slip into a logged object.
 */
export function createLogger(service: string, level = 'info', destination?: DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    mixin: () => {
      const ctx = currentContext();
      return { ...(ctx ? { requestId: ctx.requestId, userId: ctx.userId } : {}), ...traceFields() };
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
  };
  return destination ? pino(options, destination) : pino(options);
}
