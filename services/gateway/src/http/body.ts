import type { IncomingMessage } from 'node:http';
import { DomainError } from '@flowboard/service-kit';
import { itemValue, readXml, xmlFields, XmlBodyError, type XmlElement } from '../representation/xml-reader';
import { mediaTypeFormat, type Format } from './negotiate';
import { HttpProblem } from './problem';

export type Fields = Record<string, unknown>;

/** A parsed request body, read as the shape a route expects (api-compat §1.2, §1.4, §2). */
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
 * elsewhere, never read here). 415 is never returned.
 */
export async function readBody(req: IncomingMessage, limit: number): Promise<RequestBody> {
  if (req.method === 'GET' || req.method === 'HEAD' || req.method === 'DELETE') return jsonBody(undefined);
  const type = req.headers['content-type'];
  if (type && /^\s*multipart\//i.test(type)) {
    throw invalidBody('Multipart bodies are accepted only for attachment uploads.');
  }
  const text = (await readText(req, limit)).replace(/^\uFEFF/, '');
  const format = mediaTypeFormat(type) ?? (/^\s*</.test(text) ? 'xml' : 'json');
  if (text.trim() === '') return jsonBody(undefined);
  return format === 'xml' ? xmlBody(text) : jsonBody(parseJson(text));
}

function tooLarge(limit: number): HttpProblem {
  // The rest of the body is not read: closing the connection is cheaper than draining it.
  return new HttpProblem('PayloadTooLarge', `The request body exceeds ${limit} bytes.`, {
    Connection: 'close',
  });
}

function readText(req: IncomingMessage, limit: number): Promise<string> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(tooLarge(limit));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        req.pause();
        reject(tooLarge(limit));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(Buffer.concat(chunks).toString('utf8'));
    };
    const onError = (err: Error) => {
      cleanup();
      reject(invalidBody('The request body could not be read.', err));
    };
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
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
      if (value === undefined) return [];
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
  return {
    format: 'xml',
    object: () => xmlFields(root),
    array: () => root.children.map(itemValue),
    value: () => itemValue(root),
  };
}
