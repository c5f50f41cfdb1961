import { newAttachmentToken, normalizeContentType, objectKey } from './attachment';

describe('attachment tokens and keys', () => {
  it('makes 32 lowercase hex tokens, different every time', () => {
    const tokens = new Set(Array.from({ length: 100 }, newAttachmentToken));
    expect(tokens.size).toBe(100);
    for (const token of tokens) expect(token).toMatch(/^[0-9a-f]{32}$/);
  });

  it('keys objects by project, story and token only', () => {
    const token = 'a'.repeat(32);
    expect(objectKey(12, 3, token)).toBe(`12/3/${token}`);
  });

  it('refuses anything that could escape the prefix', () => {
    expect(() => objectKey(1, 2, '../../x')).toThrow(RangeError);
    expect(() => objectKey(1, 2, 'A'.repeat(32))).toThrow(RangeError);
    expect(() => objectKey(0, 2, 'a'.repeat(32))).toThrow(RangeError);
    expect(() => objectKey(1, 1.5, 'a'.repeat(32))).toThrow(RangeError);
  });
});

describe('normalizeContentType', () => {
  it.each([
    ['text/plain', 'text/plain'],
    ['Image/PNG', 'image/png'],
    ['text/plain; charset=utf-8', 'text/plain'],
    [
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    ],
    ['', 'application/octet-stream'],
    [undefined, 'application/octet-stream'],
    ['nonsense', 'application/octet-stream'],
    ['text/html\r\nX-Evil: 1', 'application/octet-stream'],
  ])('%p → %p', (raw, expected) => {
    expect(normalizeContentType(raw)).toBe(expected);
  });
});
