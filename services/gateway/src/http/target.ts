import type { RequestHandler } from 'express';
import { responseFormat } from './negotiate';
import { normalizeTarget } from './normalize-path';
import { Query } from './query';
import { stateOf } from './state';

/** Normalises the path (slashes, `.json`/`.xml` suffix) and reads the query with case-insensitive names. */
export function normalizePath(): RequestHandler {
  return (req, _res, next) => {
    const state = stateOf(req);
    state.target = normalizeTarget(req.url);
    state.query = new Query(state.target.search);
    next();
  };
}

/** Picks the response format (docs/compat.md §1.2); errors from here on are rendered in it. */
export function negotiate(): RequestHandler {
  return (req, _res, next) => {
    const state = stateOf(req);
    state.format = responseFormat({
      suffix: state.target.suffix,
      accept: req.headers.accept,
      contentType: req.headers['content-type'],
    });
    next();
  };
}
