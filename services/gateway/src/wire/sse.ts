/**
 * Server-sent events on the wire (the WHATWG HTML "server-sent events" format): blocks of `field: value` lines
 * ended by a blank line, UTF-8. Writes only what a browser's EventSource and line-based scripts both read the same
 * way: field values without line breaks (a `data` value with some is split into one `data:` line per line, which
 * the client joins back with `\n`), and never a NUL in an `id` (the client would ignore that id).
 */

export const EVENT_STREAM_CONTENT_TYPE = 'text/event-stream; charset=utf-8';

/** The headers of an event stream: never cached, never buffered by a proxy (nginx reads `X-Accel-Buffering`). */
export const EVENT_STREAM_HEADERS: Readonly<Record<string, string>> = {
  'Content-Type': EVENT_STREAM_CONTENT_TYPE,
  'Cache-Control': 'no-cache',
  'X-Accel-Buffering': 'no',
};

export interface SseEvent {
  /** The `event:` name (what `addEventListener(name)` listens to); none: a `message`. */
  event?: string;
  /** The `id:`: what the client sends back as `Last-Event-ID` when it reconnects. */
  id?: string;
  /** The `data:`; several lines are sent as several `data:` lines. */
  data?: string;
}

const LINE_BREAK = /\r\n|\r|\n/;

/** One event block, blank line included. */
export function sseEvent({ event, id, data }: SseEvent): string {
  let block = '';
  if (event !== undefined) block += `event: ${singleLine('event', event)}\n`;
  if (id !== undefined) {
    if (id.includes('\u0000')) throw new Error('an SSE id cannot hold a NUL character');
    block += `id: ${singleLine('id', id)}\n`;
  }
  if (data !== undefined) {
    block += LINE_BREAK.test(data)
      ? data
          .split(LINE_BREAK)
          .map((line) => `data: ${line}\n`)
          .join('')
      : `data: ${data}\n`;
  }
  return `${block}\n`;
}

/**
 * The stream's first block: the reconnection delay the client should use (`retry:`), and, with `id`, the position
 * the stream starts at, so a client that gets no event before it is cut off still reconnects from there with
 * `Last-Event-ID` (a block without `data` sets the client's last event id and dispatches nothing).
 */
export function sseStart(retryMs: number, id?: string): string {
  if (!Number.isInteger(retryMs) || retryMs < 0) throw new RangeError(`not a retry delay: ${retryMs}`);
  return `retry: ${retryMs}\n${id === undefined ? '' : `id: ${singleLine('id', id)}\n`}\n`;
}

/** A comment block (`: text`): keeps the connection and the proxies on its way from timing out; clients skip it. */
export const sseComment = (text: string): string => `: ${singleLine('comment', text)}\n\n`;

function singleLine(field: string, value: string): string {
  if (LINE_BREAK.test(value)) throw new Error(`an SSE ${field} cannot span lines`);
  return value;
}
