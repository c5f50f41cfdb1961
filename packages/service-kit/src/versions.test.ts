import { DomainError } from './errors';
import { parseExpectedVersion, requireVersion } from './versions';

function failure(run: () => void): DomainError {
  try {
    run();
  } catch (e) {
    if (e instanceof DomainError) return e;
    throw e;
  }
  throw new Error('expected a DomainError');
}

describe('parseExpectedVersion', () => {
  it.each([undefined, 0])('treats %p as an unconditional write', (value) => {
    expect(parseExpectedVersion(value)).toBeUndefined();
  });

  it('keeps a positive version', () => {
    expect(parseExpectedVersion(1)).toBe(1);
    expect(parseExpectedVersion(2 ** 40)).toBe(2 ** 40);
  });

  it('keeps a negative version, which no resource is at', () => {
    expect(parseExpectedVersion(-1)).toBe(-1);
  });

  it.each([1.5, Number.NaN, 2 ** 53])('refuses %p as an invalid argument', (value) => {
    expect(failure(() => parseExpectedVersion(value)).kind).toBe('InvalidArgument');
  });
});

describe('requireVersion', () => {
  it('passes an unconditional write and a write at the current version', () => {
    expect(() => requireVersion('Story', 4, 3, undefined)).not.toThrow();
    expect(() => requireVersion('Story', 4, 3, 3)).not.toThrow();
  });

  it('refuses any other version, naming the resource and both versions', () => {
    for (const expected of [2, 4]) {
      const error = failure(() => requireVersion('Story', 4, 3, expected));
      expect([error.kind, error.problem, error.message]).toEqual([
        'PreconditionFailed',
        'precondition-failed',
        `Story 4 is at version 3, not ${expected}.`,
      ]);
    }
  });
});
