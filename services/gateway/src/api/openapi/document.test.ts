import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { OpenApiContract } from '@flowboard/testing';
import { openApiDocument } from './document';

const document = openApiDocument();
describe('the OpenAPI document', () => {
  it('is valid OpenAPI 3.1 (@seriousme/openapi-schema-validator)', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'openapi-'));
    try {
      const file = path.join(dir, 'openapi.json');
      writeFileSync(file, JSON.stringify(document));
      // The validator is an ES module; its CLI runs it outside Jest's CommonJS module system.
      const cli = path.join(
        path.dirname(require.resolve('@seriousme/openapi-schema-validator/package.json')),
        'bin/validate-api-cli.js',
      );
      let output: string;
      try {
        output = execFileSync(process.execPath, [cli, file], { encoding: 'utf8' });
      } catch (err) {
        throw new Error(`invalid OpenAPI document: ${(err as { stdout?: string }).stdout ?? String(err)}`);
      }
      expect(JSON.parse(output)).toMatchObject({ valid: true });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('every component schema compiles as JSON Schema 2020-12 (Ajv, strict)', () => {
    const contract = new OpenApiContract(document);
    const names = Object.keys((document.components as { schemas: object }).schemas);
    expect(names.length).toBeGreaterThan(30);
    for (const name of names) expect(() => contract.validateSchema(name, null)).not.toThrow();
  });

  it('operation ids are unique, and every operation has a summary, a tag and a 200 answer', () => {
    const ops = Object.values(document.paths).flatMap((item) => Object.values(item));
    const ids = ops.map((o) => o.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const o of ops) {
      expect(o).toMatchObject({ summary: expect.any(String), tags: [expect.any(String)] });
      expect(Object.keys(o.responses as object)).toContain('200');
    }
  });

  it('offers JSON and XML for every body, and problem details for every error', () => {
    const responses = (document.components as { responses: Record<string, { content: object }> }).responses;
    for (const r of Object.values(responses)) {
      expect(Object.keys(r.content).sort()).toEqual(['application/problem+json', 'application/xml']);
    }
    for (const item of Object.values(document.paths)) {
      for (const o of Object.values(item) as Array<{ responses: Record<string, { content?: object }> }>) {
        const content = o.responses['200']?.content;
        if (content && !('*/*' in content)) {
          // The change stream offers its event stream besides its long-poll answer.
          const types = Object.keys(content).filter((type) => type !== 'text/event-stream');
          expect(types.sort()).toEqual(['application/json', 'application/xml']);
        }
      }
    }
  });

  it("describes the webhooks' request bodies exactly: known event types, http(s) URLs, a partial update", () => {
    const contract = new OpenApiContract(document);
    const url = 'https://hooks.example.com/flowboard';
    expect(
      contract.validateSchema('WebhookCreate', { url, eventTypes: ['story.moved'], active: false }),
    ).toEqual([]);
    expect(contract.validateSchema('WebhookCreate', { url: ` ${url}`, eventTypes: null })).toEqual([]);
    for (const bad of [
      {},
      { url: 'ftp://example.com/' },
      { url: 'example.com' },
      { url, eventTypes: ['story.exploded'] },
      { url, eventTypes: 'story.created' },
      { url, active: 'yes' },
      { url, description: 'x'.repeat(501) },
    ])
      expect([bad, contract.validateSchema('WebhookCreate', bad)]).not.toEqual([bad, []]);
    expect(contract.validateSchema('WebhookUpdate', {})).toEqual([]);
    const update = document.paths['/api/v1/projects/{projectId}/webhooks/{webhookId}']?.put as {
      requestBody: { required: boolean };
    };
    expect(update.requestBody.required).toBe(false);
  });

  it("documents the change stream: both forms, its own arguments and its 410; its answer's shape", () => {
    const events = document.paths['/api/v1/projects/{projectId}/events']?.get as {
      parameters: Array<{ name?: string; in?: string; $ref?: string }>;
      responses: Record<string, { content?: Record<string, unknown>; $ref?: string }>;
      'x-flowboard-addition': boolean;
    };
    expect(events['x-flowboard-addition']).toBe(true);
    expect(Object.keys(events.responses['200']?.content ?? {}).sort()).toEqual([
      'application/json',
      'application/xml',
      'text/event-stream',
    ]);
    expect(events.parameters.map((p) => p.name ?? p.$ref)).toEqual([
      '#/components/parameters/projectId',
      'after',
      'from',
      'Last-Event-ID',
      'limit',
      'wait',
    ]);
    expect(events.responses['410']).toEqual({ $ref: '#/components/responses/Gone' });
    const contract = new OpenApiContract(document);
    const payload = {
      id: '3f1c2b9e-0000-4000-8000-000000000001',
      type: 'story.moved',
      timestamp: '2026-11-24T10:00:00.000Z',
      project: { id: 1, name: 'Sudden Valley' },
      actor: { id: 1, name: 'Gob Bluth', userName: 'gob', email: 'Gob@bluth.com' },
      data: { id: 1, text: 'Build Spec house' },
    };
    const batch = { events: [{ id: '1-3-1f4', event: 'story.moved', data: payload }], position: '1-3-1f4' };
    expect(contract.validateSchema('EventBatch', batch)).toEqual([]);
    expect(contract.validateSchema('EventBatch', { events: [], position: '1-0-0' })).toEqual([]);
    expect(contract.validateSchema('EventBatch', { ...batch, position: 'yesterday' })).not.toEqual([]);
    expect(contract.validateSchema('EventBatch', { events: batch.events })).not.toEqual([]);
  });

  it('names the three API key schemes and the public operations', () => {
    expect(document.security).toEqual([{ apiKeyHeader: [] }, { apiKeyQuery: [] }, { bearer: [] }]);
    expect(document.paths['/api/v1/users']?.post?.security).toEqual([]);
  });

  it('its schemas accept the gateway examples and reject stray fields', () => {
    const contract = new OpenApiContract(document);
    const gob = { id: 1, name: 'Gob Bluth', userName: 'gob', email: 'Gob@bluth.com' };
    const story = {
      id: 1,
      text: 'Build Spec house',
      size: '5',
      color: 'teal',
      priority: '9',
      deadline: '2011-02-24T00:00:00',
      status: 'started',
      project: { id: 1, name: 'Sudden Valley' },
      phase: { id: 3, name: 'Working' },
      creator: gob,
      owner: gob,
    };
    const page = { page: 1, pageSize: 100, totalPages: 1, totalItems: 1, items: [story] };
    expect(contract.validateSchema('StoryPage', page)).toEqual([]);
    expect(contract.validateSchema('Story', { ...story, colour: 'red' })).not.toEqual([]);
    expect(contract.validateSchema('Story', { ...story, deadline: '2011-02-24T00:00:00Z' })).not.toEqual([]);
    const webhook = {
      id: 7,
      url: 'https://hooks.example.com/flowboard',
      eventTypes: ['story.created'],
      active: true,
      description: '',
      createTime: '2026-11-24T10:00:00',
      updateTime: '2026-11-24T10:00:00',
    };
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    expect(contract.validateSchema('WebhookPage', { ...page, items: [webhook] })).toEqual([]);
    expect(contract.validateSchema('CreatedWebhook', { ...webhook, secret })).toEqual([]);
    // The secret is shown once: a GET carrying it, or a create without it, breaks the document.
    expect(contract.validateSchema('Webhook', { ...webhook, secret })).not.toEqual([]);
    expect(contract.validateSchema('CreatedWebhook', webhook)).not.toEqual([]);
    const attempt = {
      attempt: 1,
      status: 'failed',
      latencyMs: 10000,
      error: 'timed out',
      attemptedAt: '2026-11-24T10:00:01',
    };
    const delivery = {
      id: 9,
      eventId: '3f1c2b9e-0000-4000-8000-000000000001',
      eventType: 'webhook.ping',
      attempt: 1,
      status: 'pending',
      latencyMs: 10000,
      error: 'timed out',
      attemptedAt: '2026-11-24T10:00:01',
      nextAttemptAt: '2026-11-24T10:00:06',
      createTime: '2026-11-24T10:00:00',
      attempts: [attempt],
    };
    expect(contract.validateSchema('DeliveryPage', { ...page, pageSize: 100, items: [delivery] })).toEqual(
      [],
    );
    expect(contract.validateSchema('Delivery', { ...delivery, status: 'queued' })).not.toEqual([]);
    expect(contract.validateSchema('DeliveryReference', { id: 9 })).toEqual([]);
    expect(
      contract.validateSchema('Problem', {
        type: 'urn:flowboard:problem:not-found',
        title: 'Not found',
        status: 404,
        detail: 'No such resource.',
        requestId: 'abc',
      }),
    ).toEqual([]);
  });
});
