import { comparePositions, decodePosition, encodePosition, positionBefore, positionOf } from './position';

describe('stream positions', () => {
  it.each([
    [0, -1],
    [0, 0],
    [3, 41],
    [11, 1_234_567_890],
    [0x7fffffff, Number.MAX_SAFE_INTEGER - 1],
  ])('round-trips partition %d, offset %d as URL-safe text', (partition, offset) => {
    const text = encodePosition({ partition, offset });
    expect(text).toMatch(/^1-[0-9a-z]+-[0-9a-z]+$/);
    expect(encodeURIComponent(text)).toBe(text);
    expect(decodePosition(text)).toEqual({ partition, offset });
  });

  it('writes the version, then partition and offset + 1 in base 36', () => {
    expect(encodePosition({ partition: 0, offset: -1 })).toBe('1-0-0');
    expect(encodePosition({ partition: 35, offset: 35 })).toBe('1-z-10');
  });

  it.each([
    '',
    '1',
    '1-0',
    '1-0-0-0',
    '2-0-0',
    'v1-0-0',
    '1-00-1',
    '1-0-01',
    '1-A-1',
    '1--1',
    '1-0--1',
    '1- 0-1',
    '1-0-1 ',
    '1-0-1\n',
    '1.0.1',
    '1-0-1.5',
    '1-0-zzzzzzzzzzzzzz',
    `1-${(0x80000000).toString(36)}-1`,
    `1-0-${'1'.repeat(40)}`,
    '1-0-٣',
  ])('refuses %j', (text) => {
    expect(decodePosition(text)).toBeUndefined();
  });

  it('refuses to encode what is not a partition or offset', () => {
    expect(() => encodePosition({ partition: -1, offset: 0 })).toThrow(RangeError);
    expect(() => encodePosition({ partition: 0.5, offset: 0 })).toThrow(RangeError);
    expect(() => encodePosition({ partition: 0, offset: -2 })).toThrow(RangeError);
    expect(() => encodePosition({ partition: 0, offset: Number.MAX_SAFE_INTEGER })).toThrow(RangeError);
  });

  it('orders positions of one partition by offset, and no others', () => {
    expect(comparePositions(positionOf(2, 5), positionOf(2, 9))).toBe(-1);
    expect(comparePositions(positionOf(2, 9), positionOf(2, 5))).toBe(1);
    expect(comparePositions(positionOf(2, 5), positionOf(2, 5))).toBe(0);
    expect(() => comparePositions(positionOf(1, 5), positionOf(2, 5))).toThrow(RangeError);
  });

  it('names the position just before an offset (from=now, a start of the partition)', () => {
    expect(positionBefore(4, 100)).toEqual({ partition: 4, offset: 99 });
    expect(decodePosition(encodePosition(positionBefore(4, 0)))).toEqual({ partition: 4, offset: -1 });
    expect(comparePositions(positionBefore(4, 100), positionOf(4, 100))).toBe(-1);
  });
});
