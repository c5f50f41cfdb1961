import { openApiDocument } from '../api/openapi/document';
import { OPERATIONS } from '../api/resources';
import { canonicalJson, derivedIdempotencyKey, ifMatch, toolRequest } from './requests';
import { generateTools, type McpTool, type ToolComponents } from './tools';

const { tools } = generateTools(OPERATIONS, openApiDocument().components as unknown as ToolComponents);
const tool = (name: string) => tools.find((t) => t.name === name) as McpTool;

describe('a tool call as the API request it makes', () => {
  it('sends an update with If-Match from its version, and only the body it was given', () => {
    const request = toolRequest(
      tool('updateStory'),
      { projectId: 3, storyId: '12', version: 4, body: { text: 'New text' } },
      'key:1',
    );
    expect(request).toMatchObject({
      method: 'PUT',
      path: '/api/v1/projects/3/stories/12',
      headers: { 'if-match': '"v4-0"' },
      body: { text: 'New text' },
    });
  });

  it('reads a version given as a number, a numeric string, v<n> or an ETag; refuses anything else', () => {
    expect([7, '7', 'v7', '"v7-9f86d081884c7d65"', 'v7-9f86'].map(ifMatch)).toEqual(Array(5).fill('"v7-0"'));
    expect(() => ifMatch(undefined)).toThrow("'version' is required");
    expect(() => ifMatch('latest')).toThrow("'version' is required");
    expect(() => toolRequest(tool('deleteStory'), { projectId: 3, storyId: 1 }, 'key:1')).toThrow(
      "'version' is required",
    );
  });

  it('refuses a path id that is not one, and encodes a text one', () => {
    expect(() => toolRequest(tool('getStory'), { projectId: 3, storyId: 'abc' }, 'k')).toThrow(
      "'storyId' must be a non-negative integer",
    );
    expect(toolRequest(tool('getTag'), { projectId: 3, tag: 'to do/later' }, 'k').path).toBe(
      '/api/v1/projects/3/tags/to%20do%2Flater',
    );
  });

  it('passes query arguments, `with` as a comma list, and nothing that is not one of the tool’s', () => {
    const request = toolRequest(
      tool('listStories'),
      { projectId: 3, where: 'color:red', with: ['tags', 'details'], page: 2, nonsense: 1 },
      'k',
    );
    expect(request.path).toBe('/api/v1/projects/3/stories?where=color%3Ared&with=tags%2Cdetails&page=2');
    expect(request.body).toBeUndefined();
  });

  it('gives every create an Idempotency-Key: the agent’s own, else one derived from the call', () => {
    const args = { projectId: 3, body: { text: 'A story', priority: 2 } };
    const derived = toolRequest(tool('createStory'), args, 'key:1').headers!['idempotency-key'];
    expect(derived).toMatch(/^mcp-[0-9a-f]{64}$/);
    // The same call again, arguments in another order: the same key, so the API answers it once.
    const reordered = { body: { priority: 2, text: 'A story' }, projectId: 3 };
    expect(toolRequest(tool('createStory'), reordered, 'key:1').headers!['idempotency-key']).toBe(derived);
    // Another key, tool or argument: another request.
    expect(derivedIdempotencyKey('key:2', tool('createStory'), args)).not.toBe(derived);
    expect(derivedIdempotencyKey('key:1', tool('createTag'), args)).not.toBe(derived);
    expect(derivedIdempotencyKey('key:1', tool('createStory'), { ...args, projectId: 4 })).not.toBe(derived);
    const own = toolRequest(tool('createStory'), { ...args, idempotencyKey: 'mine-1' }, 'key:1');
    expect(own.headers!['idempotency-key']).toBe('mine-1');
  });

  it('sends no Idempotency-Key or If-Match where the route takes none', () => {
    expect(toolRequest(tool('getStory'), { projectId: 3, storyId: 1 }, 'k').headers).toEqual({});
    expect(toolRequest(tool('removeMember'), { projectId: 3, user: 'bob' }, 'k').headers).toEqual({});
  });

  it('writes JSON with sorted keys at every depth', () => {
    expect(canonicalJson({ b: [{ d: 1, c: 2 }], a: null, e: undefined })).toBe(
      '{"a":null,"b":[{"c":2,"d":1}]}',
    );
  });
});
