import { DomainError } from '@flowboard/service-kit';
import { parseFilter } from '../domain/filter';

/** The page and `where` of a list request, checked alike by every slice. */

/** The largest page any list answers. */
export const MAX_PAGE_SIZE = 1000;

const invalidParameter = (message: string) =>
  new DomainError('InvalidArgument', message, { problem: 'invalid-parameter' });

/** Offset and limit of a page (the gateway has clamped already; re-checked as a contract of its own). */
export function pageWindow(page: number, pageSize: number): { offset: number; limit: number } {
  if (!Number.isSafeInteger(page) || page < 1) throw invalidParameter("Invalid 'page'.");
  if (!Number.isSafeInteger(pageSize) || pageSize < 1 || pageSize > MAX_PAGE_SIZE)
    throw invalidParameter("Invalid 'pageSize'.");
  return { offset: (page - 1) * pageSize, limit: pageSize };
}

/**
 * Tasks, comments and tags have no filterable property: `where` is accepted, any term → 400
 * (docs/compat.md §4.2).
 */
export function requireNoFilterTerms(where: string): void {
  parseFilter(where, []);
}
