import { entityTag, expectedVersion, noneMatch } from './conditional';

describe('entity tags', () => {
  const tag = entityTag(7, '{"id":1}');

  it('are strong, carry the version, and differ by representation', () => {
    expect(tag).toMatch(/^"v7-[0-9a-f]{16}"$/);
    expect(entityTag(7, '<story><id>1</id></story>')).not.toBe(tag);
    expect(entityTag(8, '{"id":1}')).not.toBe(tag);
  });

  it('If-None-Match compares weakly, takes lists and *', () => {
    expect(noneMatch({}, tag)).toBe(false);
    expect(noneMatch({ 'if-none-match': tag }, tag)).toBe(true);
    expect(noneMatch({ 'if-none-match': `W/${tag}` }, tag)).toBe(true);
    expect(noneMatch({ 'if-none-match': `"other", ${tag}` }, tag)).toBe(true);
    expect(noneMatch({ 'if-none-match': '*' }, tag)).toBe(true);
    expect(noneMatch({ 'if-none-match': '"v7-0000000000000000"' }, tag)).toBe(false);
  });

  it('If-Match gives the version to check: 0 for none or *, -1 for a tag this API did not make', () => {
    expect(expectedVersion({})).toBe(0);
    expect(expectedVersion({ 'if-match': '*' })).toBe(0);
    expect(expectedVersion({ 'if-match': tag })).toBe(7);
    expect(expectedVersion({ 'if-match': `${tag}, "v7-ffffffffffffffff"` })).toBe(7);
    expect(expectedVersion({ 'if-match': '"something-else"' })).toBe(-1);
    // Strong comparison: a weak tag never matches.
    expect(expectedVersion({ 'if-match': `W/${tag}` })).toBe(-1);
  });

  it('If-Match that is no entity-tag, or names two versions, is 400', () => {
    expect(() => expectedVersion({ 'if-match': 'v7' })).toThrow(/double quotes/);
    expect(() => expectedVersion({ 'if-match': `${tag}, "v8-0000000000000000"` })).toThrow(/one version/);
  });
});
