import type { Request, Response } from 'express';
import { CHANGES_HEADER, changesHeaderValue, type RequestContext } from '@flowboard/service-kit';
import type { ProjectAccess } from '../authz/access';
import type { BoardCache } from '../cache';
import { isRead, responseKey } from './board-read';
import { createCall } from '../api/call';
import type { Principal } from './caller';
import type { ReadAhead } from './read-ahead';
import { bytesOnce, encodedOnce, negotiatedCoding } from './compress';
import type { Format } from '../wire/negotiate';
import type { RequestRecord } from './record';
import { renderBody, sendRenderedBody, sendReply, type RenderedBody, type Reply } from '../wire/respond';
import type { FoundRoute } from './routing';
import type { StreamedBodyDigest } from '../wire/multipart-digest';

/** What the pipeline established before the handler runs. */
export interface Dispatch {
  record: RequestRecord;
  found: FoundRoute;
  principal?: Principal;
  project?: ProjectAccess;
  boardRead: ReadAhead['boardRead'];
  /** The body, when the Idempotency-Key step read it first. */
  bodyText?: string;
  /** The Idempotency-Key step's watch on a body that streams through. */
  streamedBody?: StreamedBodyDigest;
}

/**
 * Runs the matched route's handler and writes its reply in the negotiated format. A cacheable board read (as the
 * read-ahead found it) is answered from the response cache while its board's version holds; any other request
 * on a project (whatever its outcome: a timed-out write may still land) advances that version before its answer
 * goes out.
 */
export async function dispatch(
  req: Request,
  res: Response,
  { record, found, principal, project, boardRead, bodyText, streamedBody }: Dispatch,
  bodyLimit: number,
  cache: BoardCache,
): Promise<void> {
  const call = createCall(
    req,
    res,
    {
      route: { pattern: found.route.pattern, params: found.params },
      format: record.format,
      query: record.query,
      requestId: record.context.requestId,
      user: principal?.user,
      key: principal?.key,
      project,
      bodyText,
      streamedBody,
    },
    bodyLimit,
  );
  if (boardRead) {
    const version = (await boardRead.version) ?? (await cache.versions.start(boardRead.projectId));
    const key = responseKey(record);
    const rendered = await cache.responses.through(boardRead.projectId, version, key, async () =>
      cachedBody(await found.route.handler(call), record.format, found.route.pattern),
    );
    return sendRendered(req, res, rendered, (bytes) =>
      cache.responses.charge(boardRead.projectId, key, rendered, bytes),
    );
  }
  const changedBoard = isRead(req.method) ? undefined : project?.projectId;
  let reply: Reply;
  try {
    reply = await found.route.handler(call);
  } finally {
    if (changedBoard !== undefined) await cache.versions.advance(changedBoard);
    // Also on a failure: a write of several calls may have made some of its changes before it failed.
    nameChanges(res, record.context);
  }
  if (!res.headersSent) sendReply(res, reply, record.format);
}

/** The changes the request's writes made (their event ids, as the change stream shows them), in their order. */
function nameChanges(res: Response, context: RequestContext): void {
  const changes = changesHeaderValue(context);
  if (changes !== undefined && !res.headersSent) res.setHeader(CHANGES_HEADER, changes);
}

function cachedBody(reply: Reply, format: Format, pattern: string): RenderedBody {
  const rendered = renderBody(reply, format);
  if (!rendered) throw new Error(`route ${pattern} is marked cached but answered without a body`);
  return rendered;
}

/**
 * A cached answer, compressed (once per answer, not once per request) when the client accepts it; `kept` is told
 * the size of a compressed copy made, which lives as long as the answer.
 */
async function sendRendered(
  req: Request,
  res: Response,
  rendered: RenderedBody,
  kept: (bytes: number) => void,
): Promise<void> {
  res.setHeader('Content-Type', rendered.contentType);
  const coding = negotiatedCoding(req, res, rendered.body.length);
  if (coding === undefined) return sendRenderedBody(res, rendered, bytesOnce(rendered, rendered.body, kept));
  const encoded = await encodedOnce(rendered, rendered.body, coding, kept);
  res.setHeader('Content-Encoding', coding);
  sendRenderedBody(res, rendered, encoded);
}
