import type { RequestHandler } from 'express';
import { DomainError } from '@flowboard/service-kit';
import type { ApiKeyAuthenticator } from '../authz/api-keys';
import { extractApiKey } from './credentials';
import { stateOf } from './state';

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
