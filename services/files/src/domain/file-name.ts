import { DomainError } from '@flowboard/service-kit';

/**
 * File names come from the multipart part's `filename` (docs/compat.md §5.6: "the part's filename minus any
 * path"). They are display data only: storage keys never derive from them (see object-key.ts).
 */

export const MAX_FILE_NAME_LENGTH = 200;
export const DEFAULT_FILE_NAME = 'file';

// Control characters (C0, DEL, C1) and the bidirectional embedding/override/isolate marks that can make
// "gpj.exe" display as "exe.jpg".
const CONTROLS = /[\p{Cc}\u202A-\u202E\u2066-\u2069]/gu;
// Unpaired UTF-16 surrogates cannot be encoded as UTF-8 (PostgreSQL, headers); they become U+FFFD.
const LONE_SURROGATES = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Removes what can never be part of a displayed name: unpaired surrogates and control characters. */
export function stripUnsafeCharacters(value: string): string {
  return value.replace(LONE_SURROGATES, '\uFFFD').replace(CONTROLS, '');
}

/** Truncates to `max` characters (code points), never splitting a surrogate pair. */
export function truncateCodePoints(value: string, max: number): string {
  let count = 0;
  let end = 0;
  for (const ch of value) {
    if (count === max) return value.slice(0, end);
    count++;
    end += ch.length;
  }
  return value;
}

/**
 * The name to store and show: the last path segment (either separator, so `C:\x\y.txt` → `y.txt` and
 * `../../etc/passwd` → `passwd`), without control characters, NFC-normalised, trimmed, at most 200 characters;
 * `"file"` when nothing usable is left (empty, `.` or `..`). Names from callers go through acceptFileName, which
 * refuses what this would cut; this makes any name safe to show (a download's Content-Disposition).
 */
export function sanitizeFileName(raw: string | null | undefined): string {
  return orDefault(truncateCodePoints(cleanFileName(raw), MAX_FILE_NAME_LENGTH).trimEnd());
}

/** The last path segment without unsafe characters, NFC-normalised and trimmed: what a name's length counts. */
function cleanFileName(raw: string | null | undefined): string {
  const value = raw ?? '';
  const lastSeparator = Math.max(value.lastIndexOf('/'), value.lastIndexOf('\\'));
  return stripUnsafeCharacters(value.slice(lastSeparator + 1))
    .normalize('NFC')
    .trim();
}

const orDefault = (name: string) => (name === '' || name === '.' || name === '..' ? DEFAULT_FILE_NAME : name);

/**
 * A file name a caller gives (an upload's part, a rename), as it will be stored: sanitizeFileName's name, but
 * refused — 400 `invalid-field`, `what` naming where it came from — when it holds a NUL character (the rule every
 * string of a request follows, docs/compat.md §1.4) or when that name is longer than 200 characters (the cap of
 * every name, §1.5; counted after the path is removed, so a long path is no reason to refuse).
 */
export function acceptFileName(raw: string | null | undefined, what: string): string {
  if (raw?.includes('\u0000')) {
    throw new DomainError('InvalidArgument', `${what} must not contain a NUL character.`, {
      problem: 'invalid-field',
    });
  }
  const name = cleanFileName(raw);
  if (truncateCodePoints(name, MAX_FILE_NAME_LENGTH) !== name) {
    throw new DomainError(
      'InvalidArgument',
      `${what} must be at most ${MAX_FILE_NAME_LENGTH} characters (without its path).`,
      { problem: 'invalid-field' },
    );
  }
  return orDefault(name);
}
