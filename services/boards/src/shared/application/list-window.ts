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
 * A keyset page (README "Sync: cursors and updatedSince"): the items after `afterId` (0 = from the first) in id
 * order, `limit` of them. Ids never change, so a walk from page to page neither skips nor repeats an item that stays.
 */
export interface KeysetWindow {
  afterId: number;
  limit: number;
}

/** A keyset page of a list, with whether more items follow it and the number of items the whole list holds. */
export type KeysetPage<Items> = Items & { total: number; more: boolean };

/** The window of a keyset request (`page` plays no part: the cursor says where the page starts). */
export function keysetWindow(afterId: number, pageSize: number): KeysetWindow {
  if (!Number.isSafeInteger(afterId) || afterId < 0) throw invalidParameter("Invalid cursor: 'after_id'.");
  if (!Number.isSafeInteger(pageSize) || pageSize < 1 || pageSize > MAX_PAGE_SIZE)
    throw invalidParameter("Invalid 'pageSize'.");
  return { afterId, limit: pageSize };
}

/**
 * The response's KeysetPage, set exactly when the list was paged by keyset (`more` known), even on an empty page:
 * its presence tells the gateway that this release paged by the keyset and did not answer an ordinary page.
 */
export const keysetAnswer = (more: boolean | undefined): { keyset?: { more: boolean } } =>
  more === undefined ? {} : { keyset: { more } };

/**
 * Tasks, comments and tags have no filterable property: `where` is accepted, any term → 400
 * (docs/compat.md §4.2).
 */
export function requireNoFilterTerms(where: string): void {
  parseFilter(where, []);
}
