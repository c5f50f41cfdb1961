import type { RequestRecord } from './record';

// Which requests the board cache (cache/index.ts BoardCache) may answer, and under which key: facts of the request's
// record, so they sit on the request path (read-ahead.ts peeks the version, dispatch.ts answers or advances it).

const READS = new Set(['GET', 'HEAD']);

export const isRead = (method: string | undefined): boolean => READS.has(method ?? '');

/** The project whose board this request reads, when the matched route lets the cache answer it. */
export function cacheableBoardRead(
  method: string | undefined,
  record: Pick<RequestRecord, 'match' | 'query'>,
): number | undefined {
  const match = record.match;
  if (match.kind !== 'found' || !isRead(method) || !match.route.cached?.(record.query)) return undefined;
  const projectId = match.params.projectId;
  return typeof projectId === 'number' ? projectId : undefined;
}

/**
 * What tells one cached answer of a board from another: format, path and query in one spelling. Never the
 * API key (`apikey=` in the query): answers don't depend on who asked, only on whether they may (checked first).
 */
export const responseKey = (record: Pick<RequestRecord, 'format' | 'target' | 'query'>): string =>
  `${record.format} ${record.target.path}?${record.query.canonical('apikey')}`;
