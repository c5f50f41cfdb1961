import { decodeCursor, decodeSyncToken, encodeCursor, encodeSyncToken } from './cursor';
import { keysetOf, keysetPageDto, pageOf, pageOnly, parsePaging } from './page';

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

describe('lists a service pages by keyset', () => {
  const paging = (text: string | undefined, pageSize = '2') =>
    parsePaging(undefined, pageSize, { text, list: LIST, where: '' });

  it("asks after the cursor's id (0 to begin), and no keyset when paging by number", () => {
    expect(keysetOf(parsePaging('2', '2'))).toEqual({});
    expect(keysetOf(paging(undefined))).toEqual({}); // no `cursor` at all: by page
    expect(keysetOf(paging(''))).toEqual({ keyset: { after_id: 0 } });
    expect(keysetOf(paging(encodeCursor(LIST, '', { after: 41, page: 3 })))).toEqual({
      keyset: { after_id: 41 },
    });
  });

  it('answers the page with nextCursor after its last id while the service says more follow', () => {
    const first = keysetPageDto([{ id: 3 }, { id: 8 }], paging(''), 5, { more: true }, 'boards');
    expect(first).toMatchObject({ page: 1, pageSize: 2, totalPages: 3, totalItems: 5 });
    expect(Object.keys(first)).toEqual([
      'page',
      'pageSize',
      'totalPages',
      'totalItems',
      'items',
      'nextCursor',
    ]);
    const next = paging(first.nextCursor as string);
    expect(next.cursor?.state).toEqual({ after: 8, page: 2 });
    expect(keysetOf(next)).toEqual({ keyset: { after_id: 8 } });
    const last = keysetPageDto([{ id: 9 }], next, 5, { more: false }, 'boards');
    expect(last).toMatchObject({ page: 2, items: [{ id: 9 }] });
    expect(last).not.toHaveProperty('nextCursor');
    // An empty last page (the rest deleted meanwhile) ends the walk too.
    expect(keysetPageDto([], next, 2, { more: false }, 'boards')).not.toHaveProperty('nextCursor');
  });

  it.each([null, undefined])(
    'refuses (503) an answer without keyset (%s: a release that ignored it), never a short walk',
    (answer) => {
      const unavailable = expect.objectContaining({ kind: 'Unavailable' });
      expect(() => keysetPageDto([{ id: 1 }], paging(''), 1, answer, 'webhooks')).toThrow(unavailable);
      expect(() => keysetPageDto([{ id: 1 }], paging(''), 1, answer, 'webhooks')).toThrow(
        /webhooks service running does not page this list by cursor yet/,
      );
    },
  );

  it('pageOnly: a search or a write refuses cursor (400 saying why) and keeps page', () => {
    expect(pageOnly(parsePaging('2', '5'), 'A search is ranked')).toEqual({ page: 2, pageSize: 5 });
    expect(() => pageOnly(paging(''), 'A search is ranked')).toThrow(invalid);
    expect(() => pageOnly(paging(''), 'A search is ranked')).toThrow(
      "A search is ranked: it pages by 'page' and 'pageSize' only, not by 'cursor'.",
    );
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
