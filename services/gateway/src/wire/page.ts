import { DomainError } from '@flowboard/service-kit';
import type { Dto, PageDto } from '@flowboard/representation';
import { decodeCursor, encodeCursor, type CursorState } from './cursor';

export interface Paging {
  page: number;
  pageSize: number;
  /** `cursor=` given: the walk's state, and how to write the next page's cursor (bound to the list and `where`). */
  cursor?: CursorPaging;
  /** Begins a cursor walk of this list though no `cursor` was given (updatedSince does). */
  beginWalk?: () => CursorPaging;
}

export interface CursorPaging {
  state: CursorState;
  next(state: CursorState): string;
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
export function parsePaging(
  page: string | undefined,
  pageSize: string | undefined,
  /** `cursor` (README "Sync: cursors and updatedSince"), with the list it walks and its `where`. */
  cursor?: { text: string | undefined; list: string; where: string },
): Paging {
  const paging = {
    page: positive('page', page, 1, MAX_PAGE),
    pageSize: positive('pageSize', pageSize, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE),
  };
  if (!cursor) return paging;
  const { list, where } = cursor;
  const walk = (state: CursorState): CursorPaging => ({ state, next: (s) => encodeCursor(list, where, s) });
  if (cursor.text === undefined) return { ...paging, beginWalk: () => walk({ after: 0, page: 1 }) };
  if (page !== undefined)
    throw new DomainError(
      'InvalidArgument',
      "Give 'cursor' or 'page', not both: they are two ways to page.",
      {
        problem: 'invalid-parameter',
      },
    );
  const state = decodeCursor(cursor.text, list, where);
  return { ...paging, page: state.page, cursor: walk(state) };
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

/**
 * The envelope for one page of a list the caller has whole. By cursor, the items come in id order after the
 * cursor's id (ids never change, so the walk neither skips nor repeats an item that stays in the list); by page,
 * in the list's own order.
 */
export function pageOf(all: Dto[], paging: Paging): PageDto {
  const cursor = paging.cursor;
  if (cursor) {
    const after = cursor.state.after;
    const rest = all.filter((item) => compareIds(item.id, after) > 0).sort((a, b) => compareIds(a.id, b.id));
    const items = rest.slice(0, paging.pageSize);
    const last = items[items.length - 1]?.id;
    const next =
      rest.length > items.length && (typeof last === 'number' || typeof last === 'string')
        ? { after: last, page: cursor.state.page + 1 }
        : undefined;
    return cursorPageDto(items, paging, all.length, next);
  }
  const start = (paging.page - 1) * paging.pageSize;
  return pageDto(all.slice(start, start + paging.pageSize), paging, all.length);
}

/** Ids in order: numbers by value (before any string, e.g. the start's 0), strings by code units. */
function compareIds(a: unknown, b: unknown): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'number') return -1;
  if (typeof b === 'number') return 1;
  return String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0;
}

/**
 * A page by cursor: the page envelope (`page` is this page's number in the walk; the totals count the list as it
 * is now) and `nextCursor` unless this is the last page. `extra` members (a sync's) go after `items`.
 */
export function cursorPageDto(
  items: Dto[],
  paging: Paging,
  totalItems: number,
  next: CursorState | undefined,
  extra: Dto = {},
): PageDto {
  const cursor = paging.cursor;
  if (!cursor) throw new Error('cursorPageDto without a cursor');
  return {
    ...pageDto(items, paging, totalItems, true),
    ...extra,
    ...(next ? { nextCursor: cursor.next(next) } : {}),
  };
}

/**
 * A page of a list its service pages: by number, or, for `paging.cursor`, walked by the service's keyset (asked
 * with keysetOf). `answer` is the service's KeysetPage: a release older than cursor paging of this list leaves it
 * unset and answers an ordinary page, which must not pass for a cursor page (it would end the walk early, silently),
 * so that is a 503 naming the cause.
 */
export function keysetPageDto(
  items: Dto[],
  paging: Paging,
  totalItems: number,
  answer: { more: boolean } | null | undefined,
  service: string,
): PageDto {
  const cursor = paging.cursor;
  if (!cursor) return pageDto(items, paging, totalItems);
  const { more } = keysetAnswered(answer, service);
  const last = items[items.length - 1]?.id;
  const next = more && typeof last === 'number' ? { after: last, page: cursor.state.page + 1 } : undefined;
  return cursorPageDto(items, paging, totalItems, next);
}

/** The service's KeysetPage; unset (an older release, which answered an ordinary page) → the 503 above. */
export function keysetAnswered(
  answer: { more: boolean } | null | undefined,
  service: string,
): { more: boolean } {
  if (!answer)
    throw new DomainError(
      'Unavailable',
      `The ${service} service running does not page this list by cursor yet (an older release): page by 'page' ` +
        'until it is upgraded.',
    );
  return answer;
}

/** The keyset a service is asked for: after the cursor's id (numeric ids only), or none when paging by number. */
export function keysetOf(paging: Paging): { keyset?: { after_id: number } } {
  const after = paging.cursor?.state.after;
  if (!paging.cursor) return {};
  return { keyset: { after_id: typeof after === 'number' ? after : 0 } };
}

/**
 * `paging` for an answer that pages by `page` only (a ranked search; a write that answers a page of its list):
 * `cursor` there is a 400 saying `why`, before any call is made (so before anything is written).
 */
export function pageOnly(paging: Paging, why: string): Paging {
  if (paging.cursor)
    throw new DomainError(
      'InvalidArgument',
      `${why}: it pages by 'page' and 'pageSize' only, not by 'cursor'.`,
      {
        problem: 'invalid-parameter',
      },
    );
  return paging;
}

/** The envelope in its JSON key order: `page, pageSize, totalPages, totalItems, items`. */
export function pageDto(items: Dto[], paging: Paging, totalItems: number, byCursor = false): PageDto {
  // A list paged by its service answers by cursor only where its handler asked for it (cursorPageDto).
  if (paging.cursor && !byCursor)
    throw new DomainError(
      'InvalidArgument',
      "This list pages by 'page' and 'pageSize' only, not by 'cursor'.",
      {
        problem: 'invalid-parameter',
      },
    );
  return {
    page: paging.page,
    pageSize: paging.pageSize,
    totalPages: Math.ceil(totalItems / paging.pageSize),
    totalItems,
    items,
  };
}
