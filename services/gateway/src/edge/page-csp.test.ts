import { pageCsp } from './page-csp';

describe('pageCsp', () => {
  it('allows this origin only, no inline code, and images (and fonts) as a page asks', () => {
    expect(pageCsp({ img: "'self' data:", fonts: true })).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; " +
        "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    );
    const board = pageCsp({ img: 'data:' });
    expect(board).not.toContain('font-src');
    expect(board).toContain('img-src data:;');
    expect(board).not.toContain('unsafe');
  });
});
