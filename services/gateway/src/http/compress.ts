import compression from 'compression';
import type { Request, RequestHandler, Response } from 'express';
import { stateOf } from './state';

/** Attachment bytes: streamed through from the files service as they are (design.md, Attachments). */
const DOWNLOAD_ROUTE = /\/attachments\/:attachmentId\/content$/;

/**
 * Whether a response may be compressed, decided when its headers go out. Never for attachment downloads
 * (streamed as stored; compressing them would cost CPU for bytes that are often compressed already, and
 * would drop Content-Length), never for anything that answers or asks for a byte range (a compressed body
 * would no longer match `Content-Range`), else the library's rule (compressible types, no `no-transform`).
 */
export function shouldCompress(req: Request, res: Response): boolean {
  const match = stateOf(req).match;
  if (match?.kind === 'found' && DOWNLOAD_ROUTE.test(match.route.pattern)) return false;
  if (req.headers.range !== undefined || res.hasHeader('Content-Range')) return false;
  if (res.statusCode === 206 || res.statusCode === 416) return false;
  return compression.filter(req, res);
}

/**
 * gzip / deflate (or br) by `Accept-Encoding` (api-compat §1.3), streaming, for bodies of 1 KiB and more; adds
 * `Vary: Accept-Encoding`. Small bodies (most single resources, problem bodies, empty deletes) go out as they are.
 */
export function compress(): RequestHandler {
  return compression({ filter: shouldCompress, threshold: 1024 });
}
