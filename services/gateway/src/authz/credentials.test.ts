import { extractApiKey } from './credentials';
import { Query } from '../wire/query';

const KEY_A = 'a'.repeat(32);
const KEY_B = 'b'.repeat(32);
const KEY_C = 'c'.repeat(32);

describe('extractApiKey (docs/compat.md §3.1)', () => {
  it('prefers X-Zen-ApiKey over Bearer over the query', () => {
    const headers = { 'x-zen-apikey': KEY_A, authorization: `Bearer ${KEY_B}` };
    expect(extractApiKey(headers, new Query(`apikey=${KEY_C}`))).toBe(KEY_A);
  });

  it('uses Bearer when there is no header', () => {
    expect(extractApiKey({ authorization: `bearer   ${KEY_B}` }, new Query(`apikey=${KEY_C}`))).toBe(KEY_B);
  });

  it('uses the query argument in any case', () => {
    expect(extractApiKey({}, new Query(`ApiKey=${KEY_C}`))).toBe(KEY_C);
    expect(extractApiKey({}, new Query(`APIKEY=${KEY_C}`))).toBe(KEY_C);
  });

  it('does not fall through: an empty first credential is still the one used', () => {
    expect(extractApiKey({ 'x-zen-apikey': '' }, new Query(`apikey=${KEY_C}`))).toBe('');
    expect(extractApiKey({ authorization: 'Bearer' }, new Query(`apikey=${KEY_C}`))).toBe('');
  });

  it('ignores non-Bearer Authorization schemes', () => {
    expect(extractApiKey({ authorization: 'Basic Zm9vOmJhcg==' }, new Query(`apikey=${KEY_C}`))).toBe(KEY_C);
  });

  it('is undefined without any credential', () => {
    expect(extractApiKey({}, new Query(''))).toBeUndefined();
  });
});
