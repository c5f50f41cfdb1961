import { matchesFilter, parseFilter } from './index';

describe('@flowboard/filter', () => {
  it('keeps the caller spelling of a property, whatever case the client used', () => {
    expect(parseFilter('USERNAME:bob', ['name', 'userName'])).toEqual({
      kind: 'term',
      property: 'userName',
      value: 'bob',
    });
  });

  it.each([
    ['name:a', true],
    ['name:A or name:b', true],
    ['name:b and name:a', false],
    ['not(name:b) and (name:x or name:a)', true],
    ['not(name:a)', false],
  ])('matches %s in memory → %s', (where, expected) => {
    expect(matchesFilter(parseFilter(where, ['name']), () => 'a')).toBe(expected);
  });

  it('treats no filter as matching everything', () => {
    expect(parseFilter(' ', ['name'])).toBeUndefined();
    expect(matchesFilter(undefined, () => '')).toBe(true);
  });
});
