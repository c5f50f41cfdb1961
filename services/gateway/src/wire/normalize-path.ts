import type { Format } from './negotiate';

export interface NormalizedTarget {
  /** Decoded path segments, without empty ones and without the format suffix. */
  segments: string[];
  /** `/` + segments joined: trailing and duplicate slashes gone. */
  path: string;
  /** A `.json`/`.xml` suffix on the last segment (any case) picks the response format. */
  suffix?: Format;
  /** The raw query string, without `?`. */
  search: string;
}

/**
 * Normalises a request target (docs/compat.md §1.1): absolute-form targets lose scheme and host, trailing and
 * duplicate slashes are ignored, and a `.json`/`.xml` suffix is stripped before routing.
 */
export function normalizeTarget(target: string): NormalizedTarget {
  const withoutOrigin = target.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '');
  const hash = withoutOrigin.indexOf('#');
  const rest = hash >= 0 ? withoutOrigin.slice(0, hash) : withoutOrigin;
  const q = rest.indexOf('?');
  const rawPath = q >= 0 ? rest.slice(0, q) : rest;
  const search = q >= 0 ? rest.slice(q + 1) : '';

  const segments = rawPath
    .split('/')
    .filter((s) => s !== '')
    .map(decodeSegment);
  let suffix: Format | undefined;
  const last = segments[segments.length - 1];
  const match = last === undefined ? null : /^(.*)\.(json|xml)$/i.exec(last);
  if (match) {
    suffix = (match[2] as string).toLowerCase() as Format;
    const stem = match[1] as string;
    if (stem) segments[segments.length - 1] = stem;
    else segments.pop();
  }
  return { segments, path: `/${segments.join('/')}`, suffix, search };
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment; // a malformed escape just fails to match any route
  }
}
