import { isDomainError } from '@flowboard/service-kit';
import { parseUserRef, userRef, userRefFromPath } from './user-refs';

describe('user references: the one parser', () => {
  it.each<[unknown, { id: number; user_name: string }]>([
    [42, { id: 42, user_name: '' }],
    ['42', { id: 42, user_name: '' }],
    [' 7 ', { id: 7, user_name: '' }],
    ['bob', { id: 0, user_name: 'bob' }],
    ['  Bob ', { id: 0, user_name: 'Bob' }],
    [{ id: 3 }, { id: 3, user_name: '' }],
    [{ id: '3' }, { id: 3, user_name: '' }],
    [{ userName: 'carl' }, { id: 0, user_name: 'carl' }],
    [{ username: 'carl' }, { id: 0, user_name: 'carl' }],
    [
      { userName: '', username: 'carl' },
      { id: 0, user_name: 'carl' },
    ],
    // An object's userName is a username even when it is all digits; `id` wins over it.
    [{ userName: '2024' }, { id: 0, user_name: '2024' }],
    [
      { id: 5, userName: 'carl' },
      { id: 5, user_name: '' },
    ],
  ])('%j', (value, ref) => {
    expect(parseUserRef(value)).toEqual(ref);
    expect(userRef(value)).toEqual(ref);
  });

  it.each([
    null,
    undefined,
    '',
    '   ',
    0,
    -1,
    1.5,
    '0',
    true,
    [1],
    {},
    { id: 0 },
    { userName: 5 },
    { id: null, userName: '  ' },
  ])('%j is none, and a 400 invalid-field in a body', (value) => {
    expect(parseUserRef(value)).toBeUndefined();
    let thrown: unknown;
    try {
      userRef(value, "Field 'owner'");
    } catch (err) {
      thrown = err;
    }
    expect(isDomainError(thrown) && thrown.kind).toBe('InvalidArgument');
    expect((thrown as Error).message).toMatch(/^Field 'owner' must be a user id/);
  });

  it('reads {user} in a path as an id or a username; anything else names nobody (404)', () => {
    expect(userRefFromPath('12')).toEqual({ id: 12, user_name: '' });
    expect(userRefFromPath('Bob')).toEqual({ id: 0, user_name: 'Bob' });
    expect(() => userRefFromPath('0')).toThrow(expect.objectContaining({ kind: 'NotFound' }));
  });
});
