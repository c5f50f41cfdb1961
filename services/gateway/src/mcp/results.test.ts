import { openApiDocument } from '../api/openapi/document';
import { OPERATIONS } from '../api/resources';
import type { ApiAnswer } from './api-transport';
import { toolResult, versionOf } from './results';
import { generateTools, type McpTool, type ToolComponents } from './tools';

const { tools } = generateTools(OPERATIONS, openApiDocument().components as unknown as ToolComponents);
const tool = (name: string) => tools.find((t) => t.name === name) as McpTool;
const answer = (status: number, body: unknown, headers: Record<string, string> = {}): ApiAnswer => ({
  status,
  headers,
  body: typeof body === 'string' ? body : JSON.stringify(body),
});
const problem = (status: number, title: string, detail: string) => ({
  type: 'urn:flowboard:problem:x',
  title,
  status,
  detail,
  requestId: 'r-1',
});
const textOf = (result: ReturnType<typeof toolResult>) =>
  result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');

describe("the API's answer as a tool's result", () => {
  it('gives a read its resource as structured content, with the version from the ETag', () => {
    const story = { id: 12, text: 'A story' };
    const result = toolResult(tool('getStory'), answer(200, story, { etag: '"v5-9f86d081884c7d65"' }));
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toEqual({ ...story, version: 5 });
    expect(JSON.parse(textOf(result))).toEqual({ ...story, version: 5 });
  });

  it('adds no version where the resource has none', () => {
    const page = { page: 1, pageSize: 100, totalPages: 0, totalItems: 0, items: [] };
    expect(toolResult(tool('listStories'), answer(200, page)).structuredContent).toEqual(page);
  });

  it('says a replayed create was not done twice', () => {
    const result = toolResult(tool('createStory'), answer(200, { id: 1 }, { 'idempotent-replayed': 'true' }));
    expect(textOf(result)).toMatch(/nothing was done twice/);
  });

  it('says a delete was done, without structured content', () => {
    expect(toolResult(tool('deleteStory'), answer(200, ''))).toEqual({
      content: [{ type: 'text', text: 'Deleted.' }],
    });
  });

  it('makes a stale version a conflict that says to read again and that nothing was written', () => {
    const result = toolResult(
      tool('updateStory'),
      answer(412, problem(412, 'Precondition Failed', 'The story is no longer at this version.')),
    );
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/changed since you read it, so nothing was written\. Read it again/);
    expect(textOf(result)).toMatch(/call updateStory again with the new version/);
  });

  it("quotes another refusal's problem, and tells a server error or a rate limit to retry", () => {
    const bad = toolResult(
      tool('createStory'),
      answer(400, problem(400, 'Bad Request', "Field 'text' is required.")),
    );
    expect(bad).toMatchObject({ isError: true });
    expect(textOf(bad)).toBe("Refused (400 Bad Request: Field 'text' is required.). (request r-1)");
    const down = toolResult(
      tool('getStory'),
      answer(503, problem(503, 'Service Unavailable', 'boards is down')),
    );
    expect(textOf(down)).toMatch(/^The server could not do this now \(503 .*\)\. Retry later/);
    const limited = toolResult(
      tool('getStory'),
      answer(429, problem(429, 'Too Many Requests', 'slow down'), { 'retry-after': '7' }),
    );
    expect(textOf(limited)).toMatch(/Retry after 7 seconds/);
  });

  it('says a refusal given again for the same call did not run now, and how to run it again', () => {
    const conflict = problem(409, 'Conflict', "A tag named 'x' exists.");
    const result = toolResult(tool('createTag'), answer(409, conflict, { 'idempotent-replayed': 'true' }));
    expect(textOf(result)).toMatch(
      /nothing ran now\. If things have changed since, pass a new idempotencyKey/,
    );
  });

  it('reads only our ETags', () => {
    expect(versionOf('"v12-abc"')).toBe(12);
    expect(versionOf('W/"v12-abc"')).toBeUndefined();
    expect(versionOf(undefined)).toBeUndefined();
  });
});
