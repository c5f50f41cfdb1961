import { DomainError } from '@flowboard/service-kit';
import { singleItem, tagRef, tagRefsField } from './tag-refs';

const problem = (fn: () => unknown): string | undefined => {
  try {
    fn();
  } catch (err) {
    return (err as DomainError).problem;
  }
  return undefined;
};

describe('tag references in bodies (docs/compat.md §1.4, §5.3)', () => {
  it('a number or {id} is an id; a numeric string is an id tried as a name too', () => {
    expect(tagRef(3, 'tags')).toEqual({ id: 3, name: '' });
    expect(tagRef({ id: 3 }, 'tags')).toEqual({ id: 3, name: '' });
    expect(tagRef({ id: ' 3 ' }, 'tags')).toEqual({ id: 3, name: '' }); // XML: <tag><id>3</id></tag>
    expect(tagRef(' 2024 ', 'tags')).toEqual({ id: 2024, name: '2024' }); // XML: <tag>2024</tag>
  });

  it('a string or {name} is a name, trimmed; {id} wins over {name}', () => {
    expect(tagRef(' hop ons ', 'tags')).toEqual({ id: 0, name: 'hop ons' });
    expect(tagRef({ name: ' come on ' }, 'tags')).toEqual({ id: 0, name: 'come on' });
    expect(tagRef({ name: 7 }, 'tags')).toEqual({ id: 7, name: '7' });
    expect(tagRef({ id: 4, name: 'x' }, 'tags')).toEqual({ id: 4, name: '' });
  });

  it('anything else → 400 invalid-field', () => {
    for (const bad of [0, -1, 1.5, '', '  ', null, true, [], {}, { id: 'x' }, { id: 0 }]) {
      expect(problem(() => tagRef(bad, 'tags'))).toBe('invalid-field');
    }
  });

  it('`tags` on create: an array; absent, null or "" (`<tags />`) is none; a scalar → 400', () => {
    expect(tagRefsField({}, 'tags')).toEqual([]);
    expect(tagRefsField({ tags: null }, 'tags')).toEqual([]);
    expect(tagRefsField({ tags: '' }, 'tags')).toEqual([]);
    expect(tagRefsField({ tags: [1, 'a'] }, 'tags')).toEqual([
      { id: 1, name: '' },
      { id: 0, name: 'a' },
    ]);
    expect(problem(() => tagRefsField({ tags: 'a' }, 'tags'))).toBe('invalid-field');
  });

  it('one reference as a body: a list or nothing → 400 invalid-body', () => {
    expect(singleItem(5, 'story')).toBe(5);
    expect(problem(() => singleItem([5], 'story'))).toBe('invalid-body');
    expect(problem(() => singleItem(undefined, 'story'))).toBe('invalid-body');
  });
});
