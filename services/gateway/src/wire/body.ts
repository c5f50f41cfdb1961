import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { createGunzip, createInflate } from 'node:zlib';
import { DomainError } from '@flowboard/service-kit';
import { itemValue, readXml, xmlFields, XmlBodyError, type XmlElement } from './xml-reader';
import { mediaTypeFormat, type Format } from './negotiate';
import { HttpProblem } from './problem';
import { checkJsonStrings, checkXmlStrings } from './text-rule';

export type Fields = Record<string, unknown>;

/** A parsed request body, read as the shape a route expects (docs/compat.md §1.2, §1.4, §2). */
export interface RequestBody {
  format: Format;
  /** An object body (most writes); an empty body is `{}`. */
  object(): Fields;
  /** An array body (`PUT P/phases`, role members): in XML each child of the root is one item. */
  array(): unknown[];
  /** A single value or reference (`POST P/members` takes `42`, `"bob"`, or an object). */
  value(): unknown;
}

const invalidBody = (message: string, cause?: unknown) =>
  new DomainError('InvalidArgument', message, { problem: 'invalid-body', cause });

/**
 * Reads and parses a request body, at most `limit` bytes (else 413). XML Content-Type → XML, JSON → JSON; a
 * missing or unrelated type → JSON, unless the body starts with `<`. Multipart is refused (uploads are streamed
 * elsewhere, never read here). A `Content-Encoding` of gzip or deflate is decoded, the limit counting the decoded
 * bytes; any other coding → 415 (the only 415 of the API).
 */
export async function readBody(req: IncomingMessage, limit: number): Promise<RequestBody> {
  if (req.method === 'GET' || req.method === 'HEAD' || req.method === 'DELETE') return jsonBody(undefined);
  return parseBodyText(await readBodyText(req, limit), req.headers['content-type']);
}

/**
 * The body's text, decoded and without a BOM, before it is parsed: what an Idempotency-Key's fingerprint covers
 * (edge/idempotent.ts reads it first, then hands it to the handler as `parseBodyText`).
 */
export async function readBodyText(req: IncomingMessage, limit: number): Promise<string> {
  if (/^\s*multipart\//i.test(req.headers['content-type'] ?? '')) {
    throw invalidBody('Multipart bodies are accepted only for attachment uploads.');
  }
  return (await readText(req, limit)).replace(/^\uFEFF/, '');
}

export function parseBodyText(text: string, contentType: string | undefined): RequestBody {
  const format = mediaTypeFormat(contentType) ?? (/^\s*</.test(text) ? 'xml' : 'json');
  if (text.trim() === '') return jsonBody(undefined);
  if (format === 'xml') return xmlBody(text);
  const value = parseJson(text);
  checkJsonStrings(value);
  return jsonBody(value);
}

function tooLarge(limit: number): HttpProblem {
  // The rest of the body is not read: closing the connection is cheaper than draining it.
  return new HttpProblem('PayloadTooLarge', `The request body exceeds ${limit} bytes.`, {
    Connection: 'close',
  });
}

/** The request body's content coding: identity, or one the gateway decodes; anything else → 415. */
export function contentCoding(header: string | undefined): 'identity' | 'gzip' | 'deflate' {
  const codings = (header ?? '')
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity');
  if (codings.length === 0) return 'identity';
  const [only] = codings;
  if (codings.length === 1 && (only === 'gzip' || only === 'x-gzip')) return 'gzip';
  if (codings.length === 1 && only === 'deflate') return 'deflate';
  throw new DomainError(
    'UnsupportedMediaType',
    `Content-Encoding '${header}' is not supported; send the body as identity, gzip or deflate.`,
    { problem: 'unsupported-media-type' },
  );
}

function readText(req: IncomingMessage, limit: number): Promise<string> {
  const coding = contentCoding(req.headers['content-encoding']);
  const declared = Number(req.headers['content-length']);
  // A declared length bounds the decoded size only without a coding.
  if (coding === 'identity' && Number.isFinite(declared) && declared > limit)
    return Promise.reject(tooLarge(limit));
  const decoder = coding === 'identity' ? undefined : coding === 'gzip' ? createGunzip() : createInflate();
  const source: Readable = decoder ? req.pipe(decoder) : req;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = (error: DomainError) => {
      cleanup();
      if (decoder) {
        req.unpipe(decoder);
        decoder.on('error', () => {}); // whatever it still reports: the answer is already decided
        decoder.destroy();
      }
      req.pause();
      reject(error);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) return stop(tooLarge(limit));
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(Buffer.concat(chunks).toString('utf8'));
    };
    const onReadError = (err: Error) => stop(invalidBody('The request body could not be read.', err));
    const onDecodeError = (err: Error) =>
      stop(invalidBody(`The request body is not valid ${coding} data.`, err));
    const cleanup = () => {
      source.off('data', onData);
      source.off('end', onEnd);
      req.off('error', onReadError);
      decoder?.off('error', onDecodeError);
    };
    source.on('data', onData);
    source.on('end', onEnd);
    req.on('error', onReadError);
    decoder?.on('error', onDecodeError);
  });
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw invalidBody(`Malformed JSON: ${(err as Error).message}`, err);
  }
}

const isPlainObject = (v: unknown): v is Fields => typeof v === 'object' && v !== null && !Array.isArray(v);

function jsonBody(value: unknown): RequestBody {
  return {
    format: 'json',
    object() {
      if (value === undefined) return {};
      if (!isPlainObject(value)) throw invalidBody('The request body must be an object.');
      return value;
    },
    array() {
      // An array body replaces a whole set: a missing one is refused rather than read as "none" (send []).
      if (value === undefined) throw invalidBody('The request body must be an array; send [] for none.');
      if (!Array.isArray(value)) throw invalidBody('The request body must be an array.');
      return value;
    },
    value: () => value,
  };
}

function xmlBody(text: string): RequestBody {
  let root: XmlElement;
  try {
    root = readXml(text);
  } catch (err) {
    if (err instanceof XmlBodyError) throw invalidBody(err.message, err);
    throw err;
  }
  checkXmlStrings(root);
  return {
    format: 'xml',
    object: () => xmlFields(root),
    array: () => root.children.map(itemValue),
    value: () => itemValue(root),
  };
}
