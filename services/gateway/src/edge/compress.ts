import { promisify } from 'node:util';
import zlib from 'node:zlib';
import compression from 'compression';
import type { Request, RequestHandler, Response } from 'express';
import { recordOf } from './record';

/** Attachment bytes: streamed through from the files service as they are (design.md, Attachments). */
const DOWNLOAD_ROUTE = /\/attachments\/:attachmentId\/content$/;

/**
 * Whether a response may be compressed, decided when its headers go out. Never for attachment downloads
 * (streamed as stored; compressing them would cost CPU for bytes that are often compressed already, and
 * would drop Content-Length), never for anything that answers or asks for a byte range (a compressed body
 * would no longer match `Content-Range`), never for an event stream (a compressor holds bytes back until its block
 * fills, so events and heartbeats would arrive late or never), else the library's rule (compressible types, no
 * `no-transform`).
 */
export function shouldCompress(req: Request, res: Response): boolean {
  const match = recordOf(req).match;
  if (match.kind === 'found' && DOWNLOAD_ROUTE.test(match.route.pattern)) return false;
  if (isEventStream(res.getHeader('Content-Type'))) return false;
  if (req.headers.range !== undefined || res.hasHeader('Content-Range')) return false;
  if (res.statusCode === 206 || res.statusCode === 416) return false;
  return compression.filter(req, res);
}

const isEventStream = (contentType: unknown): boolean =>
  typeof contentType === 'string' && contentType.split(';')[0]?.trim().toLowerCase() === 'text/event-stream';

/**
 * gzip / deflate (or br) by `Accept-Encoding` (docs/compat.md §1.3), streaming, for bodies of 1 KiB and more;
 * adds `Vary: Accept-Encoding`. Small bodies (most single resources, problem bodies, empty deletes) go out as
 * they are.
 */
export function compress(): RequestHandler {
  return compression({ filter: shouldCompress, threshold: THRESHOLD_BYTES });
}

const THRESHOLD_BYTES = 1024;

const CODINGS = ['br', 'gzip', 'deflate'] as const;
export type Coding = (typeof CODINGS)[number];

const ENCODERS: Record<Coding, (body: string) => Promise<Buffer>> = {
  // The middleware's settings: brotli at quality 4, gzip and deflate at zlib's default level.
  br: (body) =>
    promisify(zlib.brotliCompress)(body, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } }),
  gzip: (body) => promisify(zlib.gzip)(body),
  deflate: (body) => promisify(zlib.deflate)(body),
};

/**
 * The content coding the middleware would pick for a `bodyLength`-character body of the response's type, or
 * undefined (identity): for bodies encoded once and kept (see `encodedOnce`), which go out with their
 * `Content-Encoding` set, and the middleware leaves those as they are. Call it once `Content-Type` is set.
 */
export function negotiatedCoding(req: Request, res: Response, bodyLength: number): Coding | undefined {
  if (bodyLength < THRESHOLD_BYTES || req.method === 'HEAD' || req.headers['accept-encoding'] === undefined) {
    return undefined;
  }
  if (!shouldCompress(req, res)) return undefined;
  const coding = req.acceptsEncodings(...CODINGS, 'identity');
  return CODINGS.find((c) => c === coding);
}

const encodings = new WeakMap<object, Map<Coding, Promise<Buffer>>>();

const utf8Copies = new WeakMap<object, Buffer>();

/**
 * `body` as UTF-8 bytes, made once per `owner` like encodedOnce: a string body is encoded again by every response
 * that sends it, which was a fifth of a cached page's CPU in the gateway (issue 31's profile).
 */
export function bytesOnce(
  owner: object,
  body: string,
  kept: (bytes: number) => void = () => undefined,
): Buffer {
  let bytes = utf8Copies.get(owner);
  if (!bytes) {
    bytes = Buffer.from(body, 'utf8');
    utf8Copies.set(owner, bytes);
    kept(bytes.length);
  }
  return bytes;
}

/**
 * `body` encoded with `coding`, computed once per `owner` (a cached answer, shared by every request it serves)
 * and forgotten with it: compressing a 40 KB page costs more than everything else a cached read does.
 * `kept(bytes)` is told the size of each copy made, so its keeper can count it.
 */
export function encodedOnce(
  owner: object,
  body: string,
  coding: Coding,
  kept: (bytes: number) => void = () => undefined,
): Promise<Buffer> {
  let byCoding = encodings.get(owner);
  if (!byCoding) encodings.set(owner, (byCoding = new Map()));
  let encoded = byCoding.get(coding);
  if (!encoded) {
    encoded = ENCODERS[coding](body);
    byCoding.set(coding, encoded);
    encoded.then(
      (copy) => kept(copy.length),
      () => byCoding.delete(coding), // a failure is not kept
    );
  }
  return encoded;
}
