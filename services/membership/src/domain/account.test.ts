import { DomainError } from '@flowboard/service-kit';
import { assertCollaboratorLimit, effectiveLimits, MAX_LIMIT, parseLimit } from './account';

const kindOf = (fn: () => unknown) => {
  try {
    fn();
    return 'ok';
  } catch (e) {
    return e instanceof DomainError ? e.kind : String(e);
  }
};

describe('effectiveLimits', () => {
  const defaults = { collaboratorLimit: 10, storageLimitBytes: 1000 };

  it('uses the defaults where the account has no override', () => {
    expect(effectiveLimits({ collaboratorLimit: null, storageLimitBytes: null }, defaults)).toEqual(defaults);
  });

  it("prefers the account's overrides, 0 included", () => {
    expect(effectiveLimits({ collaboratorLimit: 0, storageLimitBytes: 5 }, defaults)).toEqual({
      collaboratorLimit: 0,
      storageLimitBytes: 5,
    });
  });

  it('has no collaborator limit when neither sets one', () => {
    const limits = effectiveLimits(
      { collaboratorLimit: null, storageLimitBytes: null },
      { collaboratorLimit: undefined, storageLimitBytes: 1 },
    );
    expect(limits.collaboratorLimit).toBeUndefined();
  });
});

describe('assertCollaboratorLimit', () => {
  it('allows reaching the limit exactly', () => {
    expect(kindOf(() => assertCollaboratorLimit(5, 4, 5, 'gob'))).toBe('ok');
  });

  it('refuses going past it with a 402 naming the numbers', () => {
    expect(kindOf(() => assertCollaboratorLimit(5, 5, 6, 'gob'))).toBe('PlanLimitExceeded');
    expect(() => assertCollaboratorLimit(5, 5, 6, 'gob')).toThrow(
      /account of gob 6 collaborators; its limit is 5/,
    );
  });

  it('lets a change that adds nobody through, even over a lowered limit', () => {
    expect(kindOf(() => assertCollaboratorLimit(2, 4, 4, 'gob'))).toBe('ok');
    expect(kindOf(() => assertCollaboratorLimit(2, 4, 3, 'gob'))).toBe('ok');
    expect(kindOf(() => assertCollaboratorLimit(2, 4, 5, 'gob'))).toBe('PlanLimitExceeded');
  });

  it('never refuses without a limit', () => {
    expect(kindOf(() => assertCollaboratorLimit(undefined, 0, 1_000, 'gob'))).toBe('ok');
  });
});

describe('parseLimit', () => {
  it('accepts whole numbers from 0 to MAX_LIMIT', () => {
    expect(parseLimit('collaboratorLimit', 0)).toBe(0);
    expect(parseLimit('storageLimitBytes', MAX_LIMIT)).toBe(MAX_LIMIT);
  });

  it.each([-1, 1.5, Number.NaN, MAX_LIMIT + 2])('refuses %p naming the field', (value) => {
    expect(() => parseLimit('storageLimitBytes', value)).toThrow(
      /'storageLimitBytes' must be a whole number/,
    );
  });
});
