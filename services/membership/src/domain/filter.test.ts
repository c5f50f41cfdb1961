import { DomainError } from '@flowboard/service-kit';
import { matches, parseFilter, ROLE_FILTER_PROPERTIES, USER_FILTER_PROPERTIES } from './filter';

const user = { name: 'Bob Smith', userName: 'bob', email: 'bob@example.test' };
const test = (where: string, record: Record<string, string> = user) =>
  matches(parseFilter(where, USER_FILTER_PROPERTIES), (p) => record[p] ?? '');

const problemOf = (fn: () => unknown): string | undefined => {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(DomainError);
    return (e as DomainError).message;
  }
  return undefined;
};

describe('membership filters', () => {
  it('has no filter for a blank where', () => {
    expect(parseFilter('  ', ROLE_FILTER_PROPERTIES)).toBeUndefined();
    expect(matches(undefined, () => '')).toBe(true);
  });

  it('matches exactly, ignoring case of values, properties and keywords', () => {
    expect(test('username:BOB')).toBe(true);
    expect(test('userName:bo')).toBe(false);
    expect(test('name:"bob smith"')).toBe(true);
    expect(test('name:"Bob \\"x\\" Smith"', { name: 'Bob "x" Smith' })).toBe(true);
    expect(test('NAME:x OR email:bob@example.test')).toBe(true);
    expect(test('name:x AND email:bob@example.test')).toBe(false);
  });

  it('gives not > and > or, and honours parentheses', () => {
    expect(test('name:x and name:y or username:bob')).toBe(true);
    expect(test('name:x and (name:y or username:bob)')).toBe(false);
    expect(test('not(username:invalid)')).toBe(true);
    expect(test('not(username:bob)')).toBe(false);
  });

  it('treats an unknown value as matching nothing', () => {
    expect(test('email:nobody')).toBe(false);
  });

  it('rejects unknown properties naming them, and syntax errors with a position', () => {
    expect(problemOf(() => parseFilter('colour:red', ROLE_FILTER_PROPERTIES))).toMatch(/'colour'/);
    expect(problemOf(() => parseFilter('name:a name:b', ROLE_FILTER_PROPERTIES))).toMatch(/position 8/);
    expect(problemOf(() => parseFilter('name:"open', ROLE_FILTER_PROPERTIES))).toMatch(/unterminated/);
    expect(problemOf(() => parseFilter('not name:a', ROLE_FILTER_PROPERTIES))).toMatch(
      /position 5: unexpected 'name:'/,
    );
    expect(problemOf(() => parseFilter('(name:a', ROLE_FILTER_PROPERTIES))).toMatch(
      /position 8: unexpected end/,
    );
    expect(problemOf(() => parseFilter('name:a and', ROLE_FILTER_PROPERTIES))).toMatch(
      /position 11: unexpected end/,
    );
  });
});
