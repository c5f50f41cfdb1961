import { del, documentedPath, get, put, resourceOperations } from './operation';
import type { Call } from './call';
import { empty, type Reply } from '../wire/respond';

const handlers = (deps: { answer: Reply }) => ({
  read: async (_call: Call) => deps.answer,
  write: async (_call: Call) => empty(),
});
const cached = () => true;
const things = resourceOperations('T', 'stories', handlers, [
  get('/api/v1/things', 'listThings', 'List things', {
    access: 'key',
    ok: 'empty',
    handler: 'read',
  }),
  put('/api/v1/projects/:projectId/things/:name(text)', 'putThing', 'Put a thing', {
    access: 'ReadWrite',
    ok: 'empty',
    handler: 'write',
  }),
  get('/api/v1/projects/:projectId/things', 'readThings', 'Read things', {
    access: 'Read',
    group: 'any',
    cached,
    ok: 'empty',
    handler: 'read',
  }),
  del('/api/v1/admin/things/:id', 'dropThing', 'Drop a thing', {
    access: 'operator',
    ok: 'empty',
    handler: 'write',
  }),
]);

describe('an operation declared once', () => {
  const answer = empty();
  const routes = things.routes({ answer });

  it('becomes a route with its access: a project level, any key, or no key (operator, public)', () => {
    expect(routes.map((r) => [r.method, r.pattern, r.access, r.public, r.cached])).toEqual([
      ['GET', '/api/v1/things', undefined, undefined, undefined],
      ['PUT', '/api/v1/projects/:projectId/things/:name(text)', 'ReadWrite', undefined, undefined],
      ['GET', '/api/v1/projects/:projectId/things', 'Read', undefined, cached],
      ['DELETE', '/api/v1/admin/things/:id', undefined, true, undefined],
    ]);
  });

  it("needs the scope of its resource's group, or the one it names, and writes unless it is a GET", () => {
    expect(routes.map((r) => r.scope)).toEqual([
      { group: 'stories', write: false },
      { group: 'stories', write: true },
      { group: 'any', write: false },
      undefined, // the operator's token, no key
    ]);
    expect(things.operations.map((o) => o.scope)).toEqual(routes.map((r) => r.scope));
  });

  it('is answered by the handler it names, made from the dependencies', async () => {
    await expect(routes[0]!.handler({} as Call)).resolves.toBe(answer);
  });

  it('is documented without its handler, at its path in OpenAPI form', () => {
    expect(
      things.operations.map((o) => Object.keys(o).includes('handler') || Object.keys(o).includes('group')),
    ).toEqual([false, false, false, false]);
    expect(documentedPath(things.operations[1]!.path)).toBe('/api/v1/projects/{projectId}/things/{name}');
    expect(things.operations.map((o) => o.tag)).toEqual(['T', 'T', 'T', 'T']);
  });
});
