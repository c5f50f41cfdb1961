import { normalizeTarget } from './normalize-path';

describe('normalizeTarget (docs/compat.md §1.1)', () => {
  it.each([
    ['/api/v1/projects/', '/api/v1/projects', undefined],
    ['/api/v1//me', '/api/v1/me', undefined],
    ['//api///v1/me///', '/api/v1/me', undefined],
    ['/api/v1/projects/1/phases.json', '/api/v1/projects/1/phases', 'json'],
    ['/api/v1/projects/1/stories.XML?with=everything', '/api/v1/projects/1/stories', 'xml'],
    ['/api/v1/me.Json/', '/api/v1/me', 'json'],
    ['https://example.test/api/v1/projects?x=1', '/api/v1/projects', undefined],
    ['/api/v1/projects/1/tags/x%20y', '/api/v1/projects/1/tags/x y', undefined],
    ['/', '/', undefined],
  ])('%s → %s', (target, path, suffix) => {
    const result = normalizeTarget(target);
    expect(result.path).toBe(path);
    expect(result.suffix).toBe(suffix);
  });

  it('keeps the query string and drops the fragment', () => {
    expect(normalizeTarget('/api/v1/me?apiKey=abc&with=x#frag').search).toBe('apiKey=abc&with=x');
  });

  it('leaves a malformed escape undecoded (it matches no route)', () => {
    expect(normalizeTarget('/api/v1/projects/%E0%A4%A').segments).toEqual([
      'api',
      'v1',
      'projects',
      '%E0%A4%A',
    ]);
  });

  it('a bare suffix segment disappears', () => {
    expect(normalizeTarget('/api/v1/projects/.xml')).toMatchObject({
      path: '/api/v1/projects',
      suffix: 'xml',
    });
  });
});
