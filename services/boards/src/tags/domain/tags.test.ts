import { DomainError } from '@flowboard/service-kit';
import { parseTagName, parseTagPathRef, parseTagRef, TAG_NAME_LIMIT, uniqueNames } from './tags';

const problemOf = (fn: () => unknown): string | undefined => {
  try {
    fn();
  } catch (err) {
    return (err as DomainError).problem;
  }
  return undefined;
};

describe('parseTagName', () => {
  it('trims and keeps inner spaces', () => {
    expect(parseTagName('  solid as a rock ')).toBe('solid as a rock');
  });

  it('refuses blank, control characters and over-long names (400 invalid-field)', () => {
    expect(problemOf(() => parseTagName('   '))).toBe('invalid-field');
    expect(problemOf(() => parseTagName(undefined))).toBe('invalid-field');
    expect(problemOf(() => parseTagName('a\nb'))).toBe('invalid-field');
    expect(problemOf(() => parseTagName('x'.repeat(TAG_NAME_LIMIT + 1)))).toBe('invalid-field');
    expect(parseTagName('é'.repeat(TAG_NAME_LIMIT))).toHaveLength(TAG_NAME_LIMIT);
  });

  it('names the field in the message', () => {
    expect(() => parseTagName('', 'tags')).toThrow(/'tags'/);
  });
});

describe('parseTagPathRef', () => {
  it('a number is an id, and its text a name to fall back on', () => {
    expect(parseTagPathRef('42')).toEqual({ id: 42, name: '42' });
  });

  it('anything else is a name, trimmed', () => {
    expect(parseTagPathRef(' come on ')).toEqual({ name: 'come on' });
    expect(parseTagPathRef('0')).toEqual({ name: '0' });
    expect(parseTagPathRef('-3')).toEqual({ name: '-3' });
    expect(parseTagPathRef('1234567890123456')).toEqual({ name: '1234567890123456' });
  });

  it('a blank reference names nothing', () => {
    expect(parseTagPathRef('  ')).toBeUndefined();
  });
});

describe('parseTagRef (bodies)', () => {
  it('an id alone, an id with its numeric text, a name', () => {
    expect(parseTagRef({ id: 3, name: '' })).toEqual({ kind: 'id', id: 3 });
    expect(parseTagRef({ id: 3, name: '3' })).toEqual({ kind: 'id', id: 3, name: '3' });
    expect(parseTagRef({ id: 0, name: ' hop ons ' })).toEqual({ kind: 'name', name: 'hop ons' });
  });

  it('neither, or a negative id → 400 invalid-reference', () => {
    expect(problemOf(() => parseTagRef({ id: 0, name: ' ' }))).toBe('invalid-reference');
    expect(problemOf(() => parseTagRef({ id: -1, name: '' }))).toBe('invalid-reference');
  });
});

describe('uniqueNames', () => {
  it('dedupes ignoring case (first spelling wins) and sorts by key, for a stable lock order', () => {
    expect(uniqueNames(['b', 'A', 'B', 'a', 'c'])).toEqual(['A', 'b', 'c']);
  });
});
