import { DomainError } from '@flowboard/service-kit';
import { assertAdminRemains, parseAccess, parseRoleName } from './role';

describe('roles', () => {
  it('need a trimmed name of at most 200 characters', () => {
    expect(parseRoleName('  Developers ')).toBe('Developers');
    expect(() => parseRoleName('  ')).toThrow("'name' is required.");
    expect(() => parseRoleName('n'.repeat(201))).toThrow(/at most 200/);
  });

  it('default to access none and accept only the four levels', () => {
    expect(parseAccess(undefined)).toBe('none');
    expect(parseAccess('readwrite')).toBe('readwrite');
    expect(() => parseAccess('write')).toThrow(/'access'/);
  });

  it('refuse a change that leaves no admin role member (409)', () => {
    expect(() => assertAdminRemains(1)).not.toThrow();
    let error: unknown;
    try {
      assertAdminRemains(0);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).kind).toBe('Conflict');
  });
});
