import type { IncomingHttpHeaders } from 'node:http';
import type { RequestHandler } from 'express';
import { DomainError } from '@flowboard/service-kit';
import type { ApiKeyAuthenticator } from '../authz/api-keys';
import type { Query } from './query';
import { stateOf } from './state';

/**
 * The credential to use (api-compat §3.1): the first present of the `X-Zen-ApiKey` header, an
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

/** 401 before anything else but the public routes (sign-up) and preflights, which never get here. */
export function authenticate(authenticator: ApiKeyAuthenticator): RequestHandler {
  return async (req, _res, next) => {
    const state = stateOf(req);
    if (state.match?.kind === 'found' && state.match.route.public) return next();
    const key = extractApiKey(req.headers, state.query);
    if (key === undefined) throw new DomainError('Unauthenticated', 'An API key is required.');
    await state.cacheEpochRead; // before any locally cached decision is trusted
    const user = await authenticator.authenticate(key, state.apiKeyHash);
    state.user = user;
    state.context.userId = user.id;
    next();
  };
}
