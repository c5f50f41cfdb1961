import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import { CHANGES_HEADER, DomainError } from '@flowboard/service-kit';
import type { IdempotencyStore, Lease, StoredResponse } from '../idempotency';
import { readBodyText } from '../wire/body';
import { parseIdempotencyKey } from '../wire/idempotency-key';
import type { Principal } from './caller';
import { StreamedBodyDigest } from '../wire/multipart-digest';
import type { RequestRecord } from './record';
import type { FoundRoute } from './routing';

/**
 * A request that runs under its Idempotency-Key: the body read for the fingerprint, or for a body that streams
 * through (uploads) the digest that watches it go by; and when to stop renewing.
 */
export interface IdempotentRun {
  bodyText?: string;
  streamedBody?: StreamedBodyDigest;
  /** The handler has returned or thrown; its answer (or none) follows at once. */
  settled(): void;
}

/** Headers of an answer that belong to it (a replay sends them again); the rest belong to each response. */
const KEPT_HEADERS = ['content-type', 'location', 'etag', 'allow', CHANGES_HEADER];

/**
 * `Idempotency-Key` (IETF httpapi draft) on the routes that take it (api/router.ts `idempotencyKey`): the first request
 * with a key runs and its answer is kept (idempotency/store.ts); a retry with the same key and the same request gets
 * that answer again, marked `Idempotent-Replayed: true`; the same key with a different request → 422; a retry while
 * the first is still running → 409. Keys are per caller. Runs after the access check, so a caller who lost access
 * gets 403/404, never a replay. A 5xx is not kept (the retry runs again), nor is anything refused before this step.
 *
 * A body that streams through unread (`streamsBody`: uploads) cannot be fingerprinted before the request runs. Its
 * key is claimed on the rest of the fingerprint; the body's digest (wire/multipart-digest.ts, blind to the boundary) is
 * taken as it streams to the service and kept with the answer. A retry reads its own body to compare: the same →
 * the answer again, another → 422. An answer given before the body streamed (a 404 story) is not kept.
 *
 * Answers `undefined` when the request carries no key (or the route takes none), `'replayed'` when it has been
 * answered here, else the run to hand the handler.
 */
export async function idempotentRequest(
  req: Request,
  res: Response,
  record: RequestRecord,
  found: FoundRoute,
  principal: Principal | undefined,
  store: IdempotencyStore,
  bodyLimit: number,
): Promise<IdempotentRun | 'replayed' | undefined> {
  if (!found.route.idempotencyKey) return undefined;
  const idempotencyKey = parseIdempotencyKey(req.headers['idempotency-key']);
  if (idempotencyKey === undefined) return undefined;
  const streamedBody = found.route.streamsBody
    ? new StreamedBodyDigest(req.headers['content-type'])
    : undefined;
  const bodyText = streamedBody ? undefined : await readBodyText(req, bodyLimit);
  const claim = await store.claim(
    callerScope(req, principal),
    idempotencyKey,
    fingerprint(req, record, bodyText ?? ''),
  );
  switch (claim.kind) {
    case 'replay':
      if (streamedBody && (await streamedBody.read(req)) !== claim.bodyDigest) throw keyReused();
      replay(res, claim.response);
      return 'replayed';
    case 'in-progress':
      throw new DomainError(
        'Conflict',
        'A request with this Idempotency-Key is still in progress; retry later.',
        {
          problem: 'idempotent-request-in-progress',
        },
      );
    case 'reused':
      throw keyReused();
    case 'claimed':
      return { bodyText, streamedBody, settled: keepAnswer(res, claim.lease, streamedBody) };
  }
}

const keyReused = () =>
  new DomainError(
    'UnprocessableContent',
    'This Idempotency-Key was used for a different request (method, path, query or body).',
  );

/**
 * Whose keys these are: the API key's user; on the operator's routes and sign-up (no API key), whatever
 * credential came (a hash of the Authorization header), so nobody replays another's answer.
 */
function callerScope(req: Request, principal: Principal | undefined): string {
  if (principal) return `user:${principal.user.id}`;
  return `anonymous:${createHash('sha256')
    .update(req.headers.authorization ?? '')
    .digest('hex')}`;
}

/**
 * What makes two requests the same: method, path, query (without a credential), media type and body text (empty
 * for a streamed body, whose digest is compared on its own).
 */
function fingerprint(req: Request, record: RequestRecord, bodyText: string): string {
  const query = record.target.search
    .split('&')
    .filter((pair) => pair !== '' && !/^apikey(=|$)/i.test(pair))
    .join('&');
  const mediaType = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  return createHash('sha256')
    .update([req.method, record.target.path, query, mediaType, bodyText].join('\n'))
    .digest('hex');
}

function replay(res: Response, answer: StoredResponse): void {
  res.status(answer.status);
  for (const [name, value] of Object.entries(answer.headers)) res.setHeader(name, value);
  res.setHeader('Idempotent-Replayed', 'true');
  res.setHeader('Content-Length', answer.body.length);
  res.end(answer.body);
}

/**
 * Keeps the answer as it is written (before compression, which wraps `res` earlier), then completes the lease
 * with it; a 5xx releases the key instead, and so does an answer to a streamed body that did not all arrive (it
 * has no digest to compare a retry with). Answers the `settled` callback: a handler that never answers (a stream
 * cut short) stops renewing and its key frees itself when the lease runs out, or at once for an upload whose
 * body never all arrived.
 */
function keepAnswer(res: Response, lease: Lease, streamedBody: StreamedBodyDigest | undefined): () => void {
  const chunks: Buffer[] = [];
  const write = res.write.bind(res) as (...args: unknown[]) => boolean;
  const end = res.end.bind(res) as (...args: unknown[]) => Response;
  const collect = (chunk: unknown, encoding: unknown) => {
    if (typeof chunk === 'string')
      chunks.push(Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8'));
    else if (chunk instanceof Uint8Array) chunks.push(Buffer.from(chunk));
  };
  let ended = false;
  res.write = ((chunk: unknown, ...rest: unknown[]) => {
    collect(chunk, rest[0]);
    return write(chunk, ...rest);
  }) as Response['write'];
  res.end = ((chunk?: unknown, ...rest: unknown[]) => {
    if (!ended) {
      ended = true;
      if (typeof chunk !== 'function') collect(chunk, rest[0]);
      void finish();
    }
    return end(chunk, ...rest);
  }) as Response['end'];
  const finish = async () => {
    if (res.statusCode >= 500) return lease.release();
    const headers: Record<string, string> = {};
    for (const name of KEPT_HEADERS) {
      const value = res.getHeader(name);
      if (value !== undefined) headers[name] = String(value);
    }
    const answer = { status: res.statusCode, headers, body: Buffer.concat(chunks) };
    if (!streamedBody) return lease.complete(answer);
    // An upload refused mid-stream (402, 413) is answered before the rest of its body has arrived.
    const bodyDigest = await streamedBody.digest();
    return bodyDigest === undefined ? lease.release() : lease.complete(answer, bodyDigest);
  };
  return () => {
    if (ended) return;
    if (!streamedBody) return lease.settled();
    // An upload cut short never reached the service whole, so nothing was stored: its retry may run at once.
    void streamedBody.digest().then((digest) => (digest === undefined ? lease.release() : lease.settled()));
  };
}
