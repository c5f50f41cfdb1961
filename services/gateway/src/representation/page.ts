import { DomainError } from '@flowboard/service-kit';
import type { Dto, PageDto } from './dto';

export interface Paging {
  page: number;
  pageSize: number;
}

export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 1000;

/**
 * `page` (default 1) and `pageSize` (default 100, clamped to 1000) from query values (api-compat §4.1).
 * Below 1 or not an integer → 400 naming the argument.
 */
export function parsePaging(page: string | undefined, pageSize: string | undefined): Paging {
  return {
    page: positive('page', page, 1),
    pageSize: Math.min(positive('pageSize', pageSize, DEFAULT_PAGE_SIZE), MAX_PAGE_SIZE),
  };
}

function positive(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = /^\s*\d+\s*$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new DomainError('InvalidArgument', `Query argument '${name}' must be an integer of at least 1.`, {
      problem: 'invalid-parameter',
    });
  }
  return value;
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
