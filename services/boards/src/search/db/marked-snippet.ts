/** Where a story matched (the SearchMatch.field values). */
export type MatchedField = 'text' | 'tag' | 'details' | 'task' | 'comment';

/**
 * ts_headline marks each highlighted word between these two control characters; the reader strips both from the
 * source first, so every one in its answer is a marker. They never reach a client: the snippet goes out as plain
 * text with the highlights as offsets, which reads the same in JSON and XML and leaves escaping to the client.
 */
export const HIGHLIGHT_START = '\u0001';
export const HIGHLIGHT_END = '\u0002';

export interface Highlight {
  /** In Unicode code points from the snippet's start (not UTF-16 units: the same count in every language). */
  start: number;
  length: number;
}

/** A marked-up headline as the plain snippet and the places of its highlighted words. */
export function markedSnippet(marked: string): { snippet: string; highlights: Highlight[] } {
  const highlights: Highlight[] = [];
  let snippet = '';
  let position = 0;
  let openedAt: number | undefined;
  for (const character of marked) {
    if (character === HIGHLIGHT_START) openedAt = position;
    else if (character === HIGHLIGHT_END) {
      if (openedAt !== undefined && position > openedAt)
        highlights.push({ start: openedAt, length: position - openedAt });
      openedAt = undefined;
    } else {
      snippet += character;
      position += 1;
    }
  }
  return { snippet: snippet.trim() === snippet ? snippet : trimmed(snippet, highlights), highlights };
}

/** ts_headline may keep the white space around a fragment; trimming it moves every highlight by the cut. */
function trimmed(snippet: string, highlights: Highlight[]): string {
  const cut = [...snippet].length - [...snippet.trimStart()].length;
  for (const h of highlights) h.start -= cut;
  return snippet.trim();
}
