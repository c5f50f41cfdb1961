import type { ApiAnswer, ApiTransport } from './api-transport';
import { identifyCaller, scopeOf } from './caller';

describe("the MCP caller, from the API's answer about its key", () => {
  const api = (answer: ApiAnswer): ApiTransport => ({ send: async () => answer });

  it("is the key's scope and id", async () => {
    const body = JSON.stringify({ id: 7, access: 'read', projects: [3], groups: ['comments', 'nonsense'] });
    const found = await identifyCaller(api({ status: 200, headers: {}, body }), 'secret');
    expect(found).toMatchObject({
      caller: { identity: 'key:7', scope: { write: false, projects: [3], groups: ['comments'] } },
    });
  });

  it('is a full key on a gateway without the route (404 comes only after the key was accepted)', async () => {
    const found = await identifyCaller(api({ status: 404, headers: {}, body: '' }), 'secret');
    expect(found).toMatchObject({ caller: { scope: { write: true } } });
    expect(JSON.stringify(found)).not.toContain('secret');
  });

  it("is the API's refusal otherwise, as it came", async () => {
    const refusal = { status: 401, headers: { 'www-authenticate': 'Bearer' }, body: '{}' };
    expect(await identifyCaller(api(refusal), 'x')).toEqual({ refused: refusal });
  });

  it('is read-only unless the key says read-write', () => {
    expect(scopeOf({ access: 'readwrite' })).toEqual({ write: true });
    expect(scopeOf({})).toEqual({ write: false });
  });
});
