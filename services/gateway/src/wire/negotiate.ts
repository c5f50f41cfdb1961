export type Format = 'json' | 'xml';

export interface NegotiationInput {
  suffix?: Format;
  accept?: string;
  contentType?: string;
}

/**
 * The response format (docs/compat.md §1.2), first rule that applies: the path suffix; the `Accept` entry
 * naming XML or JSON with the highest q (ties: the first listed; `*\/*` does not count); the request's
 * `Content-Type`; JSON. Never 406.
 */
export function responseFormat({ suffix, accept, contentType }: NegotiationInput): Format {
  if (suffix) return suffix;
  const fromAccept = accept ? formatFromAccept(accept) : undefined;
  if (fromAccept) return fromAccept;
  return mediaTypeFormat(contentType) ?? 'json';
}

function formatFromAccept(accept: string): Format | undefined {
  let best: { format: Format; q: number } | undefined;
  for (const entry of accept.split(',')) {
    const [type = '', ...params] = entry.split(';');
    const format = mediaTypeFormat(type);
    if (!format) continue;
    const q = qValue(params);
    if (q > 0 && (!best || q > best.q)) best = { format, q };
  }
  return best?.format;
}

function qValue(params: string[]): number {
  for (const param of params) {
    const [name, value] = param.split('=').map((s) => s.trim());
    if (name?.toLowerCase() === 'q') {
      const q = Number(value);
      return Number.isFinite(q) ? Math.min(Math.max(q, 0), 1) : 1;
    }
  }
  return 1;
}

/** XML for `application/xml`, `text/xml`, `*+xml`; JSON for `application/json`, `*+json`; else undefined. */
export function mediaTypeFormat(mediaType: string | undefined): Format | undefined {
  const type = mediaType?.split(';')[0]?.trim().toLowerCase();
  if (!type) return undefined;
  if (type === 'application/xml' || type === 'text/xml' || type.endsWith('+xml')) return 'xml';
  if (type === 'application/json' || type.endsWith('+json')) return 'json';
  return undefined;
}

/**
 * Whether `Accept` names `text/event-stream` (with q > 0): the client wants a stream of server-sent events (the
 * change stream's SSE form) rather than a document. Only that media type counts, not `*\/*` or `text/*`.
 */
export function acceptsEventStream(accept: string | string[] | undefined): boolean {
  const value = Array.isArray(accept) ? accept.join(',') : accept;
  if (!value) return false;
  return value.split(',').some((entry) => {
    const [type = '', ...params] = entry.split(';');
    return type.trim().toLowerCase() === 'text/event-stream' && qValue(params) > 0;
  });
}

export const CONTENT_TYPES: Readonly<Record<Format, string>> = {
  json: 'application/json; charset=utf-8',
  xml: 'application/xml; charset=utf-8',
};
