import { contentRange, parseByteRange } from './byte-range';

describe('parseByteRange', () => {
  it.each([
    ['bytes=0-0', 10, { start: 0, end: 0 }],
    ['bytes=2-5', 10, { start: 2, end: 5 }],
    ['bytes=2-500', 10, { start: 2, end: 9 }],
    ['bytes=7-', 10, { start: 7, end: 9 }],
    ['bytes=-3', 10, { start: 7, end: 9 }],
    ['bytes=-30', 10, { start: 0, end: 9 }],
    ['BYTES = 1 - 2', 10, { start: 1, end: 2 }],
    ['bytes=0-99999999999999999999', 10, { start: 0, end: 9 }],
  ])('%s of %i bytes → %o', (header, size, expected) => {
    expect(parseByteRange(header, size)).toEqual(expected);
  });

  it.each([
    ['bytes=10-', 10],
    ['bytes=10-20', 10],
    ['bytes=-0', 10],
    ['bytes=-5', 0],
    ['bytes=0-', 0],
    ['bytes=99999999999999999999-', 10],
  ])('%s of %i bytes is unsatisfiable', (header, size) => {
    expect(parseByteRange(header, size)).toBe('unsatisfiable');
  });

  it.each([
    [undefined],
    [''],
    ['bytes=0-1,3-4'],
    ['bytes=5-2'],
    ['bytes=-'],
    ['items=0-1'],
    ['bytes=a-b'],
    ['bytes=0-1\r\nX-Evil: 1'],
  ])('%p is ignored (whole content)', (header) => {
    expect(parseByteRange(header, 10)).toBeUndefined();
  });

  it('formats Content-Range for 206 and 416', () => {
    expect(contentRange({ start: 2, end: 5 }, 10)).toBe('bytes 2-5/10');
    expect(contentRange('unsatisfiable', 10)).toBe('bytes */10');
  });
});
