import { sanitizeFileName } from './file-name';

/**
 * `Content-Disposition` for a download (RFC 6266): always `attachment`, with a quoted ASCII fallback for old
 * clients and the exact name as an RFC 5987/8187 `filename*` for everyone else. Safe for any input: the name is
 * sanitised again, so no CR/LF, quote or control character can break out of the header.
 */
export function contentDisposition(fileName: string): string {
  const name = sanitizeFileName(fileName);
  return `attachment; filename="${asciiFallback(name)}"; filename*=UTF-8''${encodeRfc5987(name)}`;
}

/** Accents folded where possible (é → e), anything else outside printable ASCII → `_`; `\` and `"` escaped. */
export function asciiFallback(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/[^\x20-\x7e]/gu, '_')
    .replace(/[\\"]/g, (c) => `\\${c}`);
}

/** Percent-encodes everything outside RFC 5987's attr-char set (encodeURIComponent leaves ' ( ) * alone). */
export function encodeRfc5987(value: string): string {
  return encodeURIComponent(value).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}
