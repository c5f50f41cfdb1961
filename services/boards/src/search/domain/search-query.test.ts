import { parseSearchQuery, SEARCH_LIMITS } from './search-query';

const word = (text: string) => ({ kind: 'word', text });

describe('parseSearchQuery', () => {
  it('reads words, phrases, prefixes, exclusions and OR', () => {
    expect(parseSearchQuery('login "reset link" pass* -mobile').clauses).toEqual([
      { excluded: false, anyOf: [word('login')] },
      { excluded: false, anyOf: [{ kind: 'phrase', text: 'reset link' }] },
      { excluded: false, anyOf: [{ kind: 'prefix', text: 'pass' }] },
      { excluded: true, anyOf: [word('mobile')] },
    ]);
  });

  it('binds OR tighter than the AND between clauses', () => {
    expect(parseSearchQuery('bug login OR signin OR sso').clauses).toEqual([
      { excluded: false, anyOf: [word('bug')] },
      { excluded: false, anyOf: [word('login'), word('signin'), word('sso')] },
    ]);
  });

  it('ignores punctuation-only tokens and lower-case or', () => {
    expect(parseSearchQuery('  fix -- && or ! it ').clauses.map((c) => c.anyOf)).toEqual([
      [word('fix')],
      [word('or')],
      [word('it')],
    ]);
  });

  it('takes a hyphen inside a word as part of it, and "-" alone as punctuation', () => {
    expect(parseSearchQuery('e-mail - x').clauses.map((c) => c.anyOf)).toEqual([
      [word('e-mail')],
      [word('x')],
    ]);
  });

  it.each([
    ['', /no word/],
    ['   ', /no word/],
    ['"unclosed phrase', /never closed/],
    ['-alone', /only excludes/],
    ['-"a phrase"', /only excludes/],
    ['x*', /2 characters/],
    ['a.b*', /letters and digits/],
    ['OR x', /'OR' needs/],
    ['x OR', /'OR' needs/],
    ['x OR -y', /'OR' needs/],
    ['-x OR y', /'OR' needs/],
    ['x OR OR y', /'OR' needs/],
    ['é'.repeat(SEARCH_LIMITS.maxLength + 1), /longer than 256/],
    [Array.from({ length: SEARCH_LIMITS.maxTerms + 1 }, (_, i) => `t${i}`).join(' '), /at most 16/],
  ])('refuses %j', (text, message) => {
    expect(() => parseSearchQuery(text)).toThrow(message);
  });

  it('counts the length in characters, not UTF-16 units', () => {
    expect(() => parseSearchQuery('😀'.repeat(SEARCH_LIMITS.maxLength))).not.toThrow(/longer/);
  });
});
