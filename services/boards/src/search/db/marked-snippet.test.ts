import { HIGHLIGHT_END as E, HIGHLIGHT_START as S, markedSnippet } from './marked-snippet';

describe('markedSnippet', () => {
  it('strips the markers and gives each highlight in code points', () => {
    expect(markedSnippet(`the ${S}login${E} page ${S}fails${E}`)).toEqual({
      snippet: 'the login page fails',
      highlights: [
        { start: 4, length: 5 },
        { start: 15, length: 5 },
      ],
    });
  });

  it('counts characters outside the BMP once', () => {
    const { snippet, highlights } = markedSnippet(`😀 ${S}déjà${E}`);
    expect(highlights).toEqual([{ start: 2, length: 4 }]);
    expect([...snippet].slice(2, 6).join('')).toBe('déjà');
  });

  it('trims surrounding white space and moves the highlights with it', () => {
    expect(markedSnippet(`  ${S}bug${E} `)).toEqual({
      snippet: 'bug',
      highlights: [{ start: 0, length: 3 }],
    });
  });

  it('has no highlights where nothing is marked', () => {
    expect(markedSnippet('plain text')).toEqual({ snippet: 'plain text', highlights: [] });
  });
});
