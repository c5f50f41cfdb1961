import type { Request, RequestHandler, Response } from 'express';
import type { RenderedBody } from '../caching/response-cache';
import { isRead, responseKey, type BoardCache } from './board-cache';
import { createCall } from './call';
import { encodedOnce, negotiatedCoding } from './compress';
import type { Format } from './negotiate';
import { renderBody, sendBody, sendReply, type Reply } from './respond';
import { stateOf } from './state';

/**
 * Runs the matched route's handler and writes its reply in the negotiated format. A cacheable board read (as
 * readAhead found it) is answered from the response cache while its board's version holds; any other request
 * on a project (whatever its outcome: a timed-out write may still land) advances that version before its answer
 * goes out.
 */
export function dispatch(bodyLimit: number, cache: BoardCache): RequestHandler {
  return async (req, res) => {
    const state = stateOf(req);
    const match = state.match;
    if (match?.kind !== 'found') throw new Error('dispatch reached without a route');
    const call = createCall(
      req,
      res,
      {
        route: { pattern: match.route.pattern, params: match.params },
        format: state.format,
        query: state.query,
        requestId: state.context.requestId,
        user: state.user,
        project: state.project,
      },
      bodyLimit,
    );
    const board = state.boardRead;
    if (board) {
      const version = (await board.version) ?? (await cache.versions.start(board.projectId));
      const key = responseKey(state);
      const rendered = await cache.responses.through(board.projectId, version, key, async () =>
        cachedBody(await match.route.handler(call), state.format, match.route.pattern),
      );
      return sendRendered(req, res, rendered, (bytes) =>
        cache.responses.charge(board.projectId, key, rendered, bytes),
      );
    }
    const changedBoard = isRead(req.method) ? undefined : state.project?.projectId;
    let reply: Reply;
    try {
      reply = await match.route.handler(call);
    } finally {
      if (changedBoard !== undefined) await cache.versions.advance(changedBoard);
    }
    if (!res.headersSent) sendReply(res, reply, state.format);
  };
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
  if (coding === undefined) return sendBody(res, 200, rendered.contentType, rendered.body);
  const encoded = await encodedOnce(rendered, rendered.body, coding, kept);
  res.setHeader('Content-Encoding', coding);
  sendBody(res, 200, rendered.contentType, encoded);
}
