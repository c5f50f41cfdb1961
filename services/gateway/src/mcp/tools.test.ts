import { openApiDocument } from '../api/openapi/document';
import { documentedPath, type Operation } from '../api/operation';
import { OPERATIONS } from '../api/resources';
import type { Schema } from '../api/schema';
import { generateTools, type McpTool, type ToolComponents } from './tools';

const document = openApiDocument();
const components = document.components as unknown as ToolComponents;
const { tools, leftOut } = generateTools(OPERATIONS, components);
const tool = (name: string): McpTool => {
  const found = tools.find((t) => t.name === name);
  if (!found) throw new Error(`no tool ${name}`);
  return found;
};
const input = (name: string) =>
  tool(name).definition.inputSchema as { properties: Record<string, Schema>; required: string[] };
const output = (name: string) =>
  tool(name).definition.outputSchema as Schema & { properties: Record<string, Schema> };

describe('tools generated from the operation declarations', () => {
  it('makes a tool or names a reason for every operation, once, under its operationId', () => {
    const covered = [...tools.map((t) => t.name), ...leftOut.map((l) => l.operationId)].sort();
    expect(covered).toEqual(OPERATIONS.map((op) => op.operationId).sort());
    expect(new Set(tools.map((t) => t.name)).size).toBe(tools.length);
    expect(tools.every((t) => t.definition.name === t.operation.operationId)).toBe(true);
  });

  it('leaves out what an agent cannot or should not call, each with a reason', () => {
    const reasons = Object.fromEntries(leftOut.map((l) => [l.operationId, l.reason]));
    expect(reasons.signUp).toMatch(/sign-up/);
    expect(reasons.updateAccount).toMatch(/operator/);
    expect(reasons.downloadAttachment).toMatch(/bytes/);
    expect(reasons.uploadAttachments).toMatch(/multipart/);
    expect(reasons.createApiKey).toMatch(/credentials/);
    expect(reasons.updateStories).toMatch(/no version/);
    expect(reasons.reorderPhases).toMatch(/no version/);
    expect(leftOut.every((l) => l.reason.length > 20)).toBe(true);
  });

  it('gives an update its path, its partial body, a required version and an optional Idempotency-Key', () => {
    const { properties, required } = input('updateStory');
    expect(Object.keys(properties).sort()).toEqual(
      ['projectId', 'storyId', 'with', 'body', 'version', 'idempotencyKey'].sort(),
    );
    expect(required.sort()).toEqual(['body', 'projectId', 'storyId', 'version']);
    expect(Object.keys(properties.body!.properties as object)).toEqual(
      expect.arrayContaining(['text', 'details', 'phase', 'owner', 'priority']),
    );
    expect(properties.body!.required).toBeUndefined(); // every field optional: a partial update
    expect(tool('updateStory')).toMatchObject({
      sendsVersion: true,
      answersVersion: true,
      sendsIdempotencyKey: true,
    });
    expect(tool('updateStory').definition.description).toMatch(/Changes only the fields given/);
  });

  it('gives a create an optional Idempotency-Key and no version, and says a retry is done once', () => {
    const { properties, required } = input('createStory');
    expect(properties.idempotencyKey).toBeDefined();
    expect(properties.version).toBeUndefined();
    expect(required).toEqual(['projectId', 'body']);
    expect(tool('createStory').definition.description).toMatch(/Safe to retry/);
    expect(tool('createComment').sendsIdempotencyKey).toBe(true);
    // What it made has a version already: the agent can change it without reading it first.
    expect(output('createStory').properties.version).toMatchObject({ type: 'integer' });
    expect(output('createComment').properties.version).toBeDefined();
  });

  it('answers the version of a conditional resource, and a delete needs one too', () => {
    expect(output('getStory').properties.version).toMatchObject({ type: 'integer' });
    expect(output('updateComment').properties.version).toBeDefined();
    expect(input('deleteStory').required).toContain('version');
    expect(tool('deleteStory').definition.outputSchema).toBeUndefined();
    expect(output('listStories').properties.items).toMatchObject({ type: 'array' });
    expect(output('listStories').properties.version).toBeUndefined();
  });

  it('makes the change stream a long-poll tool: after, limit, wait; no Last-Event-ID header', () => {
    const names = Object.keys(input('streamProjectEvents').properties);
    expect(names).toEqual(expect.arrayContaining(['projectId', 'after', 'limit', 'wait']));
    expect(names).not.toContain('Last-Event-ID');
    expect(output('streamProjectEvents').properties).toHaveProperty('position');
    expect(tool('streamProjectEvents').definition.description).not.toMatch(/EventSource/);
  });

  it('takes exactly the path and query parameters the OpenAPI document gives each operation', () => {
    for (const t of tools) {
      const documented = document.paths[documentedPath(t.operation.path)]![t.operation.method.toLowerCase()]!;
      const names = ((documented.parameters ?? []) as Schema[])
        .map((p) => (typeof p.$ref === 'string' ? components.parameters[p.$ref.split('/').pop()!]! : p))
        .filter((p) => p.in === 'path' || p.in === 'query')
        .map((p) => p.name);
      expect([t.name, ...t.pathParameters.map((p) => p.name), ...t.queryParameters].sort()).toEqual(
        [t.name, ...(names as string[])].sort(),
      );
    }
  });

  it('writes every schema out whole (no $ref, no xml) and every answer as an object', () => {
    for (const t of tools) {
      const text = JSON.stringify([t.definition.inputSchema, t.definition.outputSchema ?? {}]);
      expect(text).not.toContain('$ref');
      expect(text).not.toContain('"xml"');
      expect(t.definition.inputSchema.type).toBe('object');
      if (t.definition.outputSchema) expect(t.definition.outputSchema.type).toBe('object');
    }
  });

  it('marks reads read-only and deletes destructive', () => {
    expect(tool('getStory').definition.annotations).toMatchObject({
      readOnlyHint: true,
      destructiveHint: false,
    });
    expect(tool('deleteStory').definition.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
    });
  });
});

describe('a declaration lacking what a tool needs', () => {
  const story = OPERATIONS.find((op) => op.operationId === 'updateStory') as Operation;
  const generate = (op: Partial<Operation>) => () =>
    generateTools([{ ...story, ...op } as Operation], components);

  it('fails generation, naming the operation and what is missing', () => {
    expect(generate({ body: undefined })).toThrow('tool updateStory: a PUT needs a body schema');
    expect(generate({ body: 'StoryUpdat' })).toThrow('tool updateStory: no schema named StoryUpdat');
    expect(generate({ ok: { one: 'Storey' } })).toThrow('tool updateStory: no schema named Storey');
    expect(generate({ ok: { one: 'Color' } })).toThrow('tool updateStory: the answer Color is not an object');
    expect(generate({ path: '/api/v1/projects/:projectId/stories/:storyNumber' })).toThrow(
      'tool updateStory: no path parameter named storyNumber',
    );
    expect(generate({ with: 'nonsense' as Operation['with'] })).toThrow('no parameter named with.nonsense');
    expect(generate({ scope: undefined })).toThrow(
      'tool updateStory: an operation that takes an API key needs a scope',
    );
  });

  it('fails on a reference into nothing and on a shape that contains itself', () => {
    const schemas = {
      ...components.schemas,
      StoryUpdate: { type: 'object', properties: { x: { $ref: '#/x' } } },
    };
    expect(() => generateTools([story], { ...components, schemas })).toThrow(
      'a reference outside the component',
    );
    const looped = {
      ...components.schemas,
      Loop: { type: 'object', properties: { self: { $ref: '#/components/schemas/Loop' } } },
    };
    expect(() => generateTools([{ ...story, body: 'Loop' }], { ...components, schemas: looped })).toThrow(
      'Loop → Loop is a cycle',
    );
  });

  it('fails on two operations with one operationId', () => {
    expect(() => generateTools([story, story], components)).toThrow('two operations have this operationId');
  });
});
