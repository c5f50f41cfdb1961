import { Query } from './query';

describe('Query', () => {
  it('matches names case-insensitively, form-decodes and keeps repeats', () => {
    const q = new Query('apiKey=k&PageSize=10&with=a%2Cb&WITH=c&text=a+b');
    expect(q.get('apikey')).toBe('k');
    expect(q.get('pagesize')).toBe('10');
    expect(q.getAll('with')).toEqual(['a,b', 'c']);
    expect(q.get('text')).toBe('a b');
    expect(q.has('missing')).toBe(false);
  });
});
