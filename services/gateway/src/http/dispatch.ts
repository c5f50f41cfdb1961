import type { RequestHandler } from 'express';
import { createCall } from './call';
import { sendReply } from './respond';
import { stateOf } from './state';

/** Runs the matched route's handler and writes its reply in the negotiated format. */
export function dispatch(bodyLimit: number): RequestHandler {
  return async (req, res) => {
    const state = stateOf(req);
    if (state.match?.kind !== 'found') throw new Error('dispatch reached without a route');
    const reply = await state.match.route.handler(createCall(req, res, state, bodyLimit));
    if (!res.headersSent) sendReply(res, reply, state.format);
  };
}
