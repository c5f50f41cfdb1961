import { pageOf, parsePaging } from './page';

describe('paging (api-compat §4.1)', () => {
  it('defaults, clamps and refuses', () => {
    expect(parsePaging(undefined, undefined)).toEqual({ page: 1, pageSize: 100 });
    expect(parsePaging('2', '10000')).toEqual({ page: 2, pageSize: 1000 });
    expect(() => parsePaging('0', undefined)).toThrow(/'page'/);
    expect(() => parsePaging('x', undefined)).toThrow(/'page'/);
    expect(() => parsePaging(undefined, '0')).toThrow(/'pageSize'/);
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
