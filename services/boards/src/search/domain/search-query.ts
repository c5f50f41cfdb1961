import { DomainError } from '@flowboard/service-kit';

/**
 * The search language (README "Search"): words, "quoted phrases", prefix* and -excluded terms, all of which must
 * match, and `OR` between two terms when either will do (`login OR signin bug` = (login or signin) and bug). Case
 * and word endings do not matter (English stemming). Punctuation between words is ignored.
 */
export type SearchTerm =
  { kind: 'word'; text: string } | { kind: 'phrase'; text: string } | { kind: 'prefix'; text: string };

/** Every clause must hold: any of its terms matches, or (excluded) its one term does not. */
export interface SearchClause {
  excluded: boolean;
  anyOf: SearchTerm[];
}

export interface SearchQuery {
  clauses: SearchClause[];
}

/** What bounds a query's work; the README states them. */
export const SEARCH_LIMITS = {
  maxLength: 256,
  maxTerms: 16,
  minPrefixLength: 2,
} as const;

const invalidQuery = (message: string) =>
  new DomainError('InvalidArgument', message, { problem: 'invalid-parameter' });

/** A letter or digit: a token without one is punctuation and searches nothing. */
const WORD_CHARACTER = /[\p{L}\p{N}]/u;
const PREFIX = /^[\p{L}\p{N}_]+$/u;

type Token = { kind: 'or' } | { kind: 'term'; excluded: boolean; term: SearchTerm };

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    if (/\s/u.test(text[i] as string)) {
      i += 1;
      continue;
    }
    const excluded = text[i] === '-' && i + 1 < text.length && !/\s/u.test(text[i + 1] as string);
    const start = excluded ? i + 1 : i;
    if (text[start] === '"') {
      const end = text.indexOf('"', start + 1);
      if (end < 0) throw invalidQuery("Query argument 'q' has a quote that is never closed.");
      const phrase = text.slice(start + 1, end).trim();
      if (WORD_CHARACTER.test(phrase))
        tokens.push({ kind: 'term', excluded, term: { kind: 'phrase', text: phrase } });
      i = end + 1;
      continue;
    }
    let end = start;
    while (end < text.length && !/\s/u.test(text[end] as string) && text[end] !== '"') end += 1;
    const word = text.slice(start, end);
    i = end;
    if (word === 'OR' && !excluded) tokens.push({ kind: 'or' });
    else if (word.endsWith('*') && word.length > 1)
      tokens.push({ kind: 'term', excluded, term: prefixTerm(word) });
    else if (WORD_CHARACTER.test(word))
      tokens.push({ kind: 'term', excluded, term: { kind: 'word', text: word } });
  }
  return tokens;
}

function prefixTerm(word: string): SearchTerm {
  const stem = word.slice(0, -1);
  if (!PREFIX.test(stem))
    throw invalidQuery(`Invalid prefix '${word}': only letters and digits may come before the '*'.`);
  if ([...stem].length < SEARCH_LIMITS.minPrefixLength)
    throw invalidQuery(
      `Invalid prefix '${word}': a prefix needs ${SEARCH_LIMITS.minPrefixLength} characters at least.`,
    );
  return { kind: 'prefix', text: stem };
}

/** Parses `q`; a query that cannot be searched → 400 (invalid-parameter) saying why. */
export function parseSearchQuery(text: string): SearchQuery {
  if ([...text].length > SEARCH_LIMITS.maxLength)
    throw invalidQuery(`Query argument 'q' is longer than ${SEARCH_LIMITS.maxLength} characters.`);
  const tokens = tokenize(text);
  const clauses: SearchClause[] = [];
  let joinNext = false;
  for (const [index, token] of tokens.entries()) {
    if (token.kind === 'or') {
      const previous = clauses.at(-1);
      const next = tokens[index + 1];
      if (!previous || previous.excluded || joinNext || next?.kind !== 'term' || next.excluded)
        throw invalidQuery("'OR' needs a term on each side, neither of them excluded.");
      joinNext = true;
      continue;
    }
    if (joinNext) (clauses.at(-1) as SearchClause).anyOf.push(token.term);
    else clauses.push({ excluded: token.excluded, anyOf: [token.term] });
    joinNext = false;
  }
  const terms = clauses.reduce((n, c) => n + c.anyOf.length, 0);
  if (terms === 0) throw invalidQuery("Query argument 'q' has no word to search for.");
  if (terms > SEARCH_LIMITS.maxTerms)
    throw invalidQuery(
      `Query argument 'q' has ${terms} terms; at most ${SEARCH_LIMITS.maxTerms} are searched.`,
    );
  if (clauses.every((c) => c.excluded))
    throw invalidQuery("Query argument 'q' only excludes: name at least one word to find.");
  return { clauses };
}
