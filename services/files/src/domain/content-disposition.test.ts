import { asciiFallback, contentDisposition, encodeRfc5987 } from './content-disposition';

describe('contentDisposition', () => {
  it('gives an ASCII name and its RFC 5987 twin', () => {
    expect(contentDisposition('plans.txt')).toBe(
      `attachment; filename="plans.txt"; filename*=UTF-8''plans.txt`,
    );
  });

  it('escapes quotes and backslashes in the fallback and percent-encodes them in filename*', () => {
    expect(contentDisposition('Buy boat "The Sea Word".txt')).toBe(
      `attachment; filename="Buy boat \\"The Sea Word\\".txt"; filename*=UTF-8''Buy%20boat%20%22The%20Sea%20Word%22.txt`,
    );
    expect(asciiFallback('a\\b')).toBe('a\\\\b');
  });

  it('encodes Unicode names exactly and folds accents in the fallback', () => {
    expect(contentDisposition('café.txt')).toBe(
      `attachment; filename="cafe.txt"; filename*=UTF-8''caf%C3%A9.txt`,
    );
    expect(contentDisposition('日本.txt')).toBe(
      `attachment; filename="__.txt"; filename*=UTF-8''%E6%97%A5%E6%9C%AC.txt`,
    );
    expect(contentDisposition('😀.png')).toBe(
      `attachment; filename="_.png"; filename*=UTF-8''%F0%9F%98%80.png`,
    );
  });

  it("encodes ' ( ) * which encodeURIComponent leaves alone", () => {
    expect(encodeRfc5987("it's (a) *test*")).toBe('it%27s%20%28a%29%20%2Atest%2A');
  });

  it('cannot be broken out of: no CR, LF or control characters, even from raw input', () => {
    const header = contentDisposition('evil"\r\nSet-Cookie: a=b;\u0000.txt');
    for (const forbidden of ['\r', '\n', '\u0000']) expect(header).not.toContain(forbidden);
    expect(header).toBe(
      `attachment; filename="evil\\"Set-Cookie: a=b;.txt"; filename*=UTF-8''evil%22Set-Cookie%3A%20a%3Db%3B.txt`,
    );
    // The quoted fallback holds only printable ASCII, with every quote escaped.
    const fallback = /filename="((?:[^"\\]|\\.)*)"/.exec(header)![1]!;
    expect(fallback).toMatch(/^[\x20-\x7e]*$/);
  });

  it('never reveals a path', () => {
    expect(contentDisposition('../../etc/passwd')).toBe(
      `attachment; filename="passwd"; filename*=UTF-8''passwd`,
    );
  });
});
