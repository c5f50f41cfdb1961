import { parseSearchQuery } from '../domain/search-query';
import { commonShapeName } from './story-search-reader';

describe('which search statements are prepared by name', () => {
  const named = (text: string, filtered = false, sql = 'SELECT 1') =>
    commonShapeName(parseSearchQuery(text), filtered, sql);

  it('names the common shapes (up to 4 wanted terms, no filter) by their text', () => {
    expect(named('amber')).toMatch(/^boards-search-[0-9a-f]{16}$/);
    expect(named('amber "garden gate" pre* four')).toMatch(/^boards-search-/);
    expect(named('amber', false, 'SELECT 1')).toBe(named('cedar', false, 'SELECT 1'));
    expect(named('amber', false, 'SELECT 1')).not.toBe(named('amber', false, 'SELECT 2'));
  });

  it('leaves the rest unnamed, so no connection collects a statement per query asked', () => {
    expect(named('amber', true)).toBeUndefined();
    expect(named('one two three four five')).toBeUndefined();
    expect(named('amber -basil')).toBeUndefined();
    expect(named('amber OR basil')).toBeUndefined();
  });
});
