import { DomainError } from '@flowboard/service-kit';
import type { Dto, PageDto } from '@flowboard/representation';

export interface Paging {
  page: number;
  pageSize: number;
}

export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 1000;
/**
 * The highest page asked of a service: pages travel as int32 in gRPC. A larger number names a page past the end of
 * any list just as well (empty items, correct totals), so it is clamped like `pageSize` instead of refused.
 */
export const MAX_PAGE = 2_147_483_647;

/**
 * `page` (default 1) and `pageSize` (default 100) from query values (docs/compat.md §4.1). Any integer of at
 * least 1 is accepted, however many digits it has: `pageSize` is clamped to 1000 and `page` to MAX_PAGE.
 * Below 1 or not an integer (an empty value included) → 400 naming the argument.
 */
export function parsePaging(page: string | undefined, pageSize: string | undefined): Paging {
  return {
    page: positive('page', page, 1, MAX_PAGE),
    pageSize: positive('pageSize', pageSize, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE),
  };
}

function positive(name: string, raw: string | undefined, fallback: number, max: number): number {
  if (raw === undefined) return fallback;
  const digits = /^\s*0*(\d+)\s*$/.exec(raw)?.[1];
  // More than 15 digits is beyond any maximum here and beyond exact doubles: clamped without parsing.
  const value = digits === undefined ? NaN : digits.length > 15 ? Infinity : Number(digits);
  if (!(value >= 1)) {
    throw new DomainError('InvalidArgument', `Query argument '${name}' must be an integer of at least 1.`, {
      problem: 'invalid-parameter',
    });
  }
  return Math.min(value, max);
}

/** The envelope for one page of a list the caller has whole. */
export function pageOf(all: Dto[], paging: Paging): PageDto {
  const start = (paging.page - 1) * paging.pageSize;
  return pageDto(all.slice(start, start + paging.pageSize), paging, all.length);
}

/** The envelope in its JSON key order: `page, pageSize, totalPages, totalItems, items`. */
export function pageDto(items: Dto[], paging: Paging, totalItems: number): PageDto {
  return {
    page: paging.page,
    pageSize: paging.pageSize,
    totalPages: Math.ceil(totalItems / paging.pageSize),
    totalItems,
    items,
  };
}
