import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { Query } from '../wire/query';

/**
 * The credential to use (docs/compat.md §3.1): the first present of the `X-Zen-ApiKey` header, an
 * `Authorization: Bearer` token, the `apikey` query argument (any case). No fall-through: the first one present
 * is the one checked, even if it is empty or wrong.
 */
export function extractApiKey(headers: IncomingHttpHeaders, query: Query): string | undefined {
  const header = headers['x-zen-apikey'];
  if (header !== undefined) return Array.isArray(header) ? (header[0] ?? '') : header;
  const bearer = /^\s*bearer(?:\s+(.*))?$/i.exec(headers.authorization ?? '');
  if (bearer) return bearer[1] ?? '';
  return query.get('apikey');
}

/** The form a key is counted and cached under: sha256 (hex) of the trimmed, lower-cased key. */
export const apiKeyHash = (rawKey: string): string =>
  createHash('sha256').update(rawKey.trim().toLowerCase()).digest('hex');
