import { pageOf, parsePaging } from './page';

describe('paging (docs/compat.md §4.1)', () => {
  it('defaults, clamps and refuses', () => {
    expect(parsePaging(undefined, undefined)).toEqual({ page: 1, pageSize: 100 });
    expect(parsePaging('2', '10000')).toEqual({ page: 2, pageSize: 1000 });
    expect(() => parsePaging('0', undefined)).toThrow(/'page'/);
    expect(() => parsePaging('x', undefined)).toThrow(/'page'/);
    expect(() => parsePaging(undefined, '0')).toThrow(/'pageSize'/);
    expect(() => parsePaging(undefined, '1.5')).toThrow(/'pageSize'/);
    expect(() => parsePaging(undefined, '-3')).toThrow(/'pageSize'/);
    expect(() => parsePaging('000', undefined)).toThrow(/'page'/);
    expect(() => parsePaging('', undefined)).toThrow(/'page'/);
    expect(() => parsePaging(undefined, ' ')).toThrow(/'pageSize'/);
  });

  it('clamps numbers of any size instead of refusing them', () => {
    expect(parsePaging(undefined, '99999999999999999999')).toEqual({ page: 1, pageSize: 1000 });
    expect(parsePaging(undefined, '1001')).toEqual({ page: 1, pageSize: 1000 });
    expect(parsePaging(undefined, '0010')).toEqual({ page: 1, pageSize: 10 });
    expect(parsePaging('2147483648', undefined)).toEqual({ page: 2_147_483_647, pageSize: 100 });
    expect(parsePaging('9'.repeat(400), '9'.repeat(400))).toEqual({ page: 2_147_483_647, pageSize: 1000 });
  });

  it('slices and totals; past the end is empty with correct totals', () => {
    const items = [1, 2, 3].map((id) => ({ id }));
    expect(pageOf(items, { page: 2, pageSize: 2 })).toEqual({
      page: 2,
      pageSize: 2,
      totalPages: 2,
      totalItems: 3,
      items: [{ id: 3 }],
    });
    expect(pageOf(items, { page: 5, pageSize: 2 }).items).toEqual([]);
    expect(pageOf([], { page: 1, pageSize: 100 })).toMatchObject({ totalPages: 0, totalItems: 0 });
  });
});
