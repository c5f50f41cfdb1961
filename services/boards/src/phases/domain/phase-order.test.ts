import { DomainError } from '@flowboard/service-kit';
import {
  insertionIndex,
  moveIndex,
  parsePhaseName,
  parseWipLimit,
  shiftedPosition,
  validatePhaseOrder,
  validateStoryOrder,
} from './phase-order';

function invalidArgument(fn: () => unknown): DomainError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(DomainError);
    expect((e as DomainError).kind).toBe('InvalidArgument');
    return e as DomainError;
  }
  throw new Error('expected an InvalidArgument');
}
const refuses = (fn: () => unknown): void => {
  invalidArgument(fn);
};

describe('insertionIndex', () => {
  it('defaults to just before Archive', () => expect(insertionIndex(undefined, 4)).toBe(4));
  it.each([1, 2, 4])('accepts %i on a board whose Archive is at 4', (i) =>
    expect(insertionIndex(i, 4)).toBe(i),
  );
  it.each([0, -1, 5, 1.5, Number.NaN])('refuses %p', (i) => refuses(() => insertionIndex(i, 4)));
});

describe('moveIndex', () => {
  it('moves a middle phase within 1..last-1', () => {
    expect(moveIndex(2, 1, 4)).toBe(1);
    expect(moveIndex(1, 3, 4)).toBe(3);
  });
  it('keeps a no-op, even for Backlog and Archive', () => {
    expect(moveIndex(0, 0, 4)).toBe(0);
    expect(moveIndex(4, 4, 4)).toBe(4);
  });
  it('never moves Backlog or Archive', () => {
    expect(invalidArgument(() => moveIndex(0, 1, 4)).message).toMatch(/Backlog/);
    expect(invalidArgument(() => moveIndex(4, 2, 4)).message).toMatch(/Archive/);
  });
  it.each([0, 4, 5, -1])('puts nothing before Backlog or after Archive (%i)', (to) =>
    refuses(() => moveIndex(2, to, 4)),
  );
});

describe('shiftedPosition', () => {
  const apply = (n: number, from: number, to: number) =>
    Array.from({ length: n }, (_, p) => shiftedPosition(p, from, to));
  it('moving down shifts the ones in between up', () => expect(apply(6, 1, 3)).toEqual([0, 3, 1, 2, 4, 5]));
  it('moving up shifts the ones in between down', () => expect(apply(6, 4, 1)).toEqual([0, 2, 3, 4, 1, 5]));
  it('always yields a permutation of 0..n-1', () => {
    for (let n = 3; n <= 7; n++)
      for (let from = 1; from < n - 1; from++)
        for (let to = 1; to < n - 1; to++)
          expect([...apply(n, from, to)].sort((a, b) => a - b)).toEqual([...Array(n).keys()]);
  });
});

describe('validatePhaseOrder', () => {
  const current = [10, 11, 12, 13, 14];
  it('accepts every phase once, Backlog first and Archive last', () =>
    expect(() => validatePhaseOrder(current, [10, 13, 11, 12, 14])).not.toThrow());
  it.each<[string, number[]]>([
    ['a missing phase', [10, 11, 12, 14]],
    ['a duplicate', [10, 11, 11, 12, 13, 14]],
    ['an unknown phase', [10, 11, 12, 13, 99, 14]],
    ['Backlog not first', [11, 10, 12, 13, 14]],
    ['Archive not last', [10, 11, 12, 14, 13]],
    ['nothing', []],
  ])('refuses %s', (_, requested) => refuses(() => validatePhaseOrder(current, requested)));
});

describe('validateStoryOrder', () => {
  it('accepts exactly the stories, any order', () =>
    expect(() => validateStoryOrder([1, 2, 3], [3, 1, 2])).not.toThrow());
  it('accepts an empty phase', () => expect(() => validateStoryOrder([], [])).not.toThrow());
  it.each<[string, number[]]>([
    ['a missing story', [1, 2]],
    ['a duplicate', [1, 2, 2, 3]],
    ['a story of another phase', [1, 2, 3, 4]],
  ])('refuses %s', (_, requested) => refuses(() => validateStoryOrder([1, 2, 3], requested)));
});

describe('phase fields', () => {
  it('names are required and trimmed', () => {
    expect(parsePhaseName('  Review ')).toBe('Review');
    invalidArgument(() => parsePhaseName('  '));
  });
  it('limit: 0 removes it; positive integers only', () => {
    expect(parseWipLimit(0)).toBeNull();
    expect(parseWipLimit(3)).toBe(3);
    invalidArgument(() => parseWipLimit(-2));
  });
});
