/**
 * A `Range` header on a download (RFC 9110 §14), for one byte range only:
 *   `bytes=a-b`, `bytes=a-`, `bytes=-n`  → the satisfiable part of that range, or 'unsatisfiable' (416);
 *   anything else — no header, another unit, a malformed value, several ranges — → undefined: the header is
 *   ignored and the whole content is sent with 200 (RFC 9110 lets a server ignore Range; multipart/byteranges
 *   answers are not worth their complexity for attachments).
 */
export interface ByteRange {
  /** First byte, inclusive. */
  start: number;
  /** Last byte, inclusive. */
  end: number;
}

const SINGLE = /^bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i;

/** Digits → number; more than 15 digits stands for "beyond any object we store". */
const toNumber = (digits: string): number => (digits.length > 15 ? Number.MAX_SAFE_INTEGER : Number(digits));

export function parseByteRange(
  header: string | undefined,
  size: number,
): ByteRange | 'unsatisfiable' | undefined {
  if (header === undefined) return undefined;
  const m = SINGLE.exec(header.trim());
  if (!m) return undefined; // another unit, several ranges, or not a range at all
  const [, first = '', last = ''] = m;
  if (first === '' && last === '') return undefined;
  if (first === '') {
    // Suffix: the last n bytes. n = 0, or any suffix of an empty object, selects nothing.
    const n = toNumber(last);
    if (n === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - n), end: size - 1 };
  }
  const start = toNumber(first);
  if (last !== '' && toNumber(last) < start) return undefined; // invalid range → ignore the header
  if (start >= size) return 'unsatisfiable';
  const end = last === '' ? size - 1 : Math.min(toNumber(last), size - 1);
  return { start, end };
}

/** `Content-Range` of a 206 (`bytes 0-99/1000`) or of a 416 (`bytes *\/1000`). */
export const contentRange = (range: ByteRange | 'unsatisfiable', size: number): string =>
  range === 'unsatisfiable' ? `bytes */${size}` : `bytes ${range.start}-${range.end}/${size}`;
