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

  it('canonical: one string for every spelling of the same query, without the omitted names', () => {
    const a = new Query('with=tags&PAGE=2&apikey=secret&with=tasks');
    const b = new Query('page=2&With=tags&with=tasks&ApiKey=other');
    expect(a.canonical('apiKey')).toBe('page=2&with=tags&with=tasks');
    expect(b.canonical('apiKey')).toBe(a.canonical('apiKey'));
    expect(new Query('with=tasks&with=tags').canonical()).not.toBe(a.canonical('apikey'));
    expect(new Query('text=a+b%26c').canonical()).toBe('text=a+b%26c');
  });
});
