import type { Response } from 'express';
import { entityTag, noneMatch } from './conditional';
import { PLURALS, type Dto, type PageDto, type ResourceType, toJson } from '@flowboard/representation';
import { toXml } from './xml';
import { CONTENT_TYPES, type Format } from './negotiate';

/** An answer rendered once, as it goes out: what the response cache keeps. */
export interface RenderedBody {
  contentType: string;
  body: string;
  /** A single resource's strong ETag (conditional.ts). */
  etag?: string;
}

/** What a route handler answers; the dispatcher writes it in the negotiated format. Every success is 200. */
export type Reply =
  /** `version`: the resource's version as its service keeps it, for the ETag; lists and views have none. */
  | { kind: 'resource'; type: ResourceType; body: Dto; version?: number }
  | { kind: 'page'; type: ResourceType; body: PageDto }
  | { kind: 'empty' }
  /** A document the handler rendered itself (the change stream's long-poll answer), without an ETag. */
  | { kind: 'rendered'; rendered: RenderedBody }
  /** The handler wrote the response itself (streams). */
  | { kind: 'handled' };

export const resource = (type: ResourceType, body: Dto, version?: number): Reply => ({
  kind: 'resource',
  type,
  body,
  version,
});
export const page = (type: ResourceType, body: PageDto): Reply => ({ kind: 'page', type, body });
export const empty = (): Reply => ({ kind: 'empty' });
export const handled = (): Reply => ({ kind: 'handled' });
export const rendered = (body: RenderedBody): Reply => ({ kind: 'rendered', rendered: body });

export function sendReply(res: Response, reply: Reply, format: Format): void {
  if (reply.kind === 'empty') return sendEmpty(res);
  const rendered = renderBody(reply, format);
  if (rendered) sendRenderedBody(res, rendered);
}

/** A rendered answer with its ETag, or 304 when a read's If-None-Match already has it. */
export function sendRenderedBody(
  res: Response,
  rendered: RenderedBody,
  body: string | Buffer = rendered.body,
) {
  if (rendered.etag !== undefined) {
    res.setHeader('ETag', rendered.etag);
    const read = res.req.method === 'GET' || res.req.method === 'HEAD';
    if (read && noneMatch(res.req.headers, rendered.etag)) return sendNotModified(res);
  }
  sendBody(res, 200, rendered.contentType, body);
}

function sendNotModified(res: Response): void {
  res.status(304);
  res.removeHeader('Content-Type');
  res.removeHeader('Content-Encoding');
  res.end();
}

/** The body of a resource or page reply in `format`; undefined for replies without one. */
export function renderBody(reply: Reply, format: Format): RenderedBody | undefined {
  switch (reply.kind) {
    case 'resource': {
      const body = format === 'xml' ? toXml(reply.type, reply.body) : toJson(reply.body);
      return {
        contentType: CONTENT_TYPES[format],
        body,
        // Version 0: a service from before versions (a rolling upgrade), which has none to offer.
        ...(reply.version ? { etag: entityTag(reply.version, body) } : {}),
      };
    }
    case 'page':
      return {
        contentType: CONTENT_TYPES[format],
        body: format === 'xml' ? toXml(PLURALS[reply.type], reply.body, reply.type) : toJson(reply.body),
      };
    case 'rendered':
      return reply.rendered;
    case 'empty':
    case 'handled':
      return undefined;
  }
}

/** Writes a complete body with its length; HEAD gets the same headers and no body (Node drops it). */
export function sendBody(res: Response, status: number, contentType: string, body: string | Buffer): void {
  res.status(status);
  res.setHeader('Content-Type', contentType);
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}

/** Deletes: 200, `Content-Length: 0` and no Content-Type (browser clients choke on an empty body labelled JSON). */
export function sendEmpty(res: Response): void {
  res.status(200);
  res.removeHeader('Content-Type');
  res.setHeader('Content-Length', 0);
  res.end();
}
