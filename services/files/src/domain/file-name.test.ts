import { acceptFileName, DEFAULT_FILE_NAME, sanitizeFileName, truncateCodePoints } from './file-name';

describe('sanitizeFileName', () => {
  it.each([
    ['plans.txt', 'plans.txt'],
    ['../../etc/passwd', 'passwd'],
    ['/etc/passwd', 'passwd'],
    ['C:\\x\\y.txt', 'y.txt'],
    ['C:\\Users\\gob\\My Documents\\plans v2.txt', 'plans v2.txt'],
    ['a/b\\c/d.txt', 'd.txt'],
    ['..\\..\\windows\\system32\\evil.dll', 'evil.dll'],
  ])('takes the last path segment of %p', (raw, expected) => {
    expect(sanitizeFileName(raw)).toBe(expected);
  });

  it('strips CR, LF, NUL, tabs and other control characters', () => {
    expect(sanitizeFileName('evil\r\nSet-Cookie: x=1.txt')).toBe('evilSet-Cookie: x=1.txt');
    expect(sanitizeFileName('a\u0000b\u0007c\u007f\u0085d\te.txt')).toBe('abcde.txt');
  });

  it('strips bidirectional override marks used to disguise extensions', () => {
    expect(sanitizeFileName('invoice\u202Egpj.exe')).toBe('invoicegpj.exe');
    expect(sanitizeFileName('a\u2066b\u2069.txt')).toBe('ab.txt');
  });

  it('keeps quotes, spaces inside the name, and Unicode', () => {
    expect(sanitizeFileName('Buy boat "The Sea Word".txt')).toBe('Buy boat "The Sea Word".txt');
    expect(sanitizeFileName('  report  final.pdf  ')).toBe('report  final.pdf');
    expect(sanitizeFileName('日本語のファイル.txt')).toBe('日本語のファイル.txt');
    expect(sanitizeFileName('😀 emoji.png')).toBe('😀 emoji.png');
  });

  it('NFC-normalises (a decomposed é becomes one code point)', () => {
    const decomposed = 'cafe\u0301.txt';
    const result = sanitizeFileName(decomposed);
    expect(result).toBe('caf\u00e9.txt');
    expect(result).toHaveLength(8);
  });

  it('replaces unpaired surrogates', () => {
    expect(sanitizeFileName('a\ud800b.txt')).toBe('a\ufffdb.txt');
  });

  it('caps the length at 200 characters without splitting surrogate pairs', () => {
    expect(sanitizeFileName('x'.repeat(300))).toBe('x'.repeat(200));
    const emoji = sanitizeFileName('😀'.repeat(250));
    expect([...emoji]).toHaveLength(200);
    expect(emoji).toBe('😀'.repeat(200));
  });

  it.each(['', '   ', '/', 'dir/', 'C:\\dir\\', '.', '..', '../..', '\u0000\r\n', undefined, null])(
    'falls back to "file" for %p',
    (raw) => {
      expect(sanitizeFileName(raw)).toBe(DEFAULT_FILE_NAME);
    },
  );
});

describe('truncateCodePoints', () => {
  it('keeps short values and cuts long ones at a code point boundary', () => {
    expect(truncateCodePoints('abc', 5)).toBe('abc');
    expect(truncateCodePoints('abcdef', 3)).toBe('abc');
    expect(truncateCodePoints('a😀b', 2)).toBe('a😀');
  });
});

describe('acceptFileName', () => {
  it('answers the name sanitizeFileName makes', () => {
    expect(acceptFileName('C:\\x\\ plans.txt ', 'A file name')).toBe('plans.txt');
    expect(acceptFileName('a\u0007b\u202E.txt', 'A file name')).toBe('ab.txt');
    expect(acceptFileName('', 'A file name')).toBe(DEFAULT_FILE_NAME);
  });

  it('refuses a NUL character anywhere, path included (400 invalid-field naming where)', () => {
    for (const raw of ['a\u0000b.txt', 'dir\u0000/b.txt', '\u0000']) {
      expect(() => acceptFileName(raw, "Field 'filename'")).toThrow(
        expect.objectContaining({
          kind: 'InvalidArgument',
          problem: 'invalid-field',
          message: "Field 'filename' must not contain a NUL character.",
        }),
      );
    }
  });

  it('keeps 200 characters, refuses 201 (code points, counted without the path)', () => {
    expect(acceptFileName('x'.repeat(200), 'A file name')).toBe('x'.repeat(200));
    expect(acceptFileName('😀'.repeat(200), 'A file name')).toBe('😀'.repeat(200));
    expect(acceptFileName(`${'d'.repeat(500)}/${'x'.repeat(200)}`, 'A file name')).toBe('x'.repeat(200));
    expect(acceptFileName(`  ${'x'.repeat(200)}  `, 'A file name')).toBe('x'.repeat(200));
    for (const raw of ['x'.repeat(201), '😀'.repeat(201), `d/${'x'.repeat(201)}`]) {
      expect(() => acceptFileName(raw, "The file name of part 'file'")).toThrow(
        expect.objectContaining({
          kind: 'InvalidArgument',
          problem: 'invalid-field',
          message: "The file name of part 'file' must be at most 200 characters (without its path).",
        }),
      );
    }
  });
});
