import { decodeCursor, decodeSyncToken, encodeCursor, encodeSyncToken } from './cursor';
import { pageOf, parsePaging } from './page';

const LIST = 'GET /api/v1/projects/:projectId/stories {"projectId":7}';
const invalid = expect.objectContaining({ kind: 'InvalidArgument', problem: 'invalid-parameter' });

describe('cursors', () => {
  it('round-trips a walk: empty begins, each cursor carries the last id, page number and sync', () => {
    expect(decodeCursor('', LIST, '')).toEqual({ after: 0, page: 1 });
    const text = encodeCursor(LIST, 'color:red', { after: 41, page: 3, since: '1:2:3:', walk: '1:5:5:' });
    expect(text).toMatch(/^[A-Za-z0-9_-]+\.[0-9a-f]{12}$/);
    expect(decodeCursor(text, LIST, ' color:red ')).toEqual({
      after: 41,
      page: 3,
      since: '1:2:3:',
      walk: '1:5:5:',
    });
  });

  it.each([
    ['malformed', 'not a cursor', /not a cursor this API answered/],
    ['cut short', () => encodeCursor(LIST, '', { after: 1, page: 2 }).slice(0, -1), /not a cursor/],
    ['edited', () => 'x' + encodeCursor(LIST, '', { after: 1, page: 2 }).slice(1), /not a cursor/],
    [
      'of another list',
      () => encodeCursor(LIST.replace('7', '8'), '', { after: 1, page: 2 }),
      /another list/,
    ],
  ])('refuses a cursor %s with a 400 saying why', (_, text, why) => {
    const given = typeof text === 'function' ? text() : text;
    expect(() => decodeCursor(given, LIST, '')).toThrow(invalid);
    expect(() => decodeCursor(given, LIST, '')).toThrow(why);
  });

  it("refuses another where's cursor, and cursor with page", () => {
    const text = encodeCursor(LIST, 'color:red', { after: 1, page: 2 });
    expect(() => decodeCursor(text, LIST, 'color:blue')).toThrow(/another 'where'/);
    expect(() => parsePaging('1', undefined, { text, list: LIST, where: 'color:red' })).toThrow(/not both/);
  });

  it('pages a whole list by id after the cursor, with nextCursor until the last page', () => {
    const all = [{ id: 5 }, { id: 2 }, { id: 9 }, { id: 7 }];
    const first = pageOf(all, parsePaging(undefined, '2', { text: '', list: LIST, where: '' }));
    expect(first).toMatchObject({
      page: 1,
      pageSize: 2,
      totalPages: 2,
      totalItems: 4,
      items: [{ id: 2 }, { id: 5 }],
    });
    // An item inserted before the cursor and one deleted after it change nothing already walked.
    const rest = [{ id: 5 }, { id: 1 }, { id: 9 }, { id: 7 }];
    const second = pageOf(
      rest,
      parsePaging(undefined, '2', { text: first.nextCursor as string, list: LIST, where: '' }),
    );
    expect(second).toMatchObject({ page: 2, items: [{ id: 7 }, { id: 9 }] });
    expect(second.nextCursor).toBeUndefined();
  });
});

describe('sync tokens', () => {
  it('round-trips a position bound to its project; start is every story', () => {
    expect(decodeSyncToken(encodeSyncToken(7, '42:1:2:'), 7)).toBe('42:1:2:');
    expect(decodeSyncToken('start', 7)).toBe('');
  });

  it.each([
    ['empty', '', /empty/],
    ['malformed', 'abc', /not a syncToken/],
    ["another project's", encodeSyncToken(8, '42:1:2:'), /another project/],
    ['a cursor', encodeCursor(LIST, '', { after: 1, page: 2 }), /not a syncToken/],
  ])('refuses a token %s with a 400 saying why', (_, text, why) => {
    expect(() => decodeSyncToken(text, 7)).toThrow(invalid);
    expect(() => decodeSyncToken(text, 7)).toThrow(why);
  });
});
