import { createHash } from 'node:crypto';
import { DomainError } from '@flowboard/service-kit';

/**
 * Opaque cursors and sync tokens (README "Sync: cursors and updatedSince"). A cursor is where a walk through one
 * list stands: the last item id it answered (the keyset: ids never change, so an item moved or a neighbour deleted
 * during the walk is neither skipped nor repeated), the page number within the walk, the list it belongs to and a
 * digest of its `where`, and for a sync the position it syncs from and the one the walk started at. Text:
 * base64url(JSON) "." 12 hex digits of a SHA-256 over it, so an edited or truncated cursor is a clear 400 rather
 * than a wrong page. Not a secret: it says nothing the caller may not read, and every request is authorised anew.
 */
export interface CursorState {
  /** The last item id answered; 0 (or '') before the first. */
  after: number | string;
  /** This page's number within the walk, from 1. */
  page: number;
  /** updatedSince: the position synced from ('' = from the start), and the position of the walk's first page. */
  since?: string;
  walk?: string;
}

interface Stored {
  v: 1;
  /** The list: route pattern and path parameters. */
  l: string;
  /** Digest of `where`. */
  w: string;
  a: number | string;
  n: number;
  s?: string;
  k?: string;
}

const MAX_LENGTH = 4096;

const digest = (text: string, length: number): string =>
  createHash('sha256').update(text).digest('hex').slice(0, length);

const invalidCursor = (why: string) =>
  new DomainError('InvalidArgument', `Query argument 'cursor' is invalid: ${why}.`, {
    problem: 'invalid-parameter',
  });

function seal(payload: object): string {
  const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return `${body}.${digest(body, 12)}`;
}

/** The payload of a sealed text, or undefined when it is not one (malformed, truncated, edited). */
function unseal(text: string): unknown {
  const m = /^([A-Za-z0-9_-]+)\.([0-9a-f]{12})$/.exec(text);
  if (!m || text.length > MAX_LENGTH || digest(m[1] as string, 12) !== m[2]) return undefined;
  try {
    return JSON.parse(Buffer.from(m[1] as string, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
}

export function encodeCursor(list: string, where: string, state: CursorState): string {
  const stored: Stored = {
    v: 1,
    l: digest(list, 16),
    w: digest(where.trim(), 16),
    a: state.after,
    n: state.page,
  };
  if (state.since !== undefined) stored.s = state.since;
  if (state.walk !== undefined) stored.k = state.walk;
  return seal(stored);
}

/** A cursor's state; '' (no value) begins a walk. Malformed, edited, another list's or another `where`'s → 400. */
export function decodeCursor(text: string, list: string, where: string): CursorState {
  if (text === '') return { after: 0, page: 1 };
  const stored = unseal(text.trim()) as Partial<Stored> | undefined;
  if (
    !stored ||
    stored.v !== 1 ||
    typeof stored.n !== 'number' ||
    !Number.isSafeInteger(stored.n) ||
    stored.n < 1
  )
    throw invalidCursor(
      'not a cursor this API answered (altered or cut short?); begin again with cursor= (empty)',
    );
  if (stored.l !== digest(list, 16)) throw invalidCursor('it belongs to another list');
  if (stored.w !== digest(where.trim(), 16))
    throw invalidCursor("it was answered for another 'where'; keep the filter for the whole walk");
  const after = stored.a;
  if (!(
    typeof after === 'string' ||
    (typeof after === 'number' && Number.isSafeInteger(after) && after >= 0)
  ))
    throw invalidCursor('not a cursor this API answered');
  return {
    after,
    page: stored.n,
    ...(typeof stored.s === 'string' ? { since: stored.s } : {}),
    ...(typeof stored.k === 'string' ? { walk: stored.k } : {}),
  };
}

/** A sync token (updatedSince): a project's sync position, sealed like a cursor and bound to the project. */
export function encodeSyncToken(projectId: number, position: string): string {
  return seal({ v: 1, p: projectId, s: position });
}

/** The position of a token of this project; `start` → '' (every story). Anything else → 400 naming the problem. */
export function decodeSyncToken(text: string, projectId: number): string {
  if (text.trim() === 'start') return '';
  const invalid = (why: string) =>
    new DomainError('InvalidArgument', `Query argument 'updatedSince' is invalid: ${why}.`, {
      problem: 'invalid-parameter',
    });
  if (text.trim() === '')
    throw invalid("empty; give the syncToken of the last sync, or 'start' for every story");
  const stored = unseal(text.trim()) as { v?: unknown; p?: unknown; s?: unknown } | undefined;
  if (!stored || stored.v !== 1 || typeof stored.s !== 'string' || stored.s === '')
    throw invalid(
      "not a syncToken this API answered (altered or cut short?); give 'start' to sync from scratch",
    );
  if (stored.p !== projectId) throw invalid("it is another project's syncToken");
  return stored.s;
}
