import type { Request, Response } from 'express';
import { shouldCompress } from './compress';
import type { Route } from './router';
import { initState } from './state';

/** A request that went through routing, and a response with some headers already set. */
function exchange(options: {
  pattern?: string;
  range?: string;
  status?: number;
  headers?: Record<string, string>;
}) {
  const req = { headers: options.range ? { range: options.range } : {} } as unknown as Request;
  const state = initState(req, { requestId: 'r1' });
  if (options.pattern)
    state.match = { kind: 'found', route: { method: 'GET', pattern: options.pattern } as Route, params: {} };
  const headers = new Map(
    Object.entries({ 'content-type': 'application/json; charset=utf-8', ...options.headers }),
  );
  const res = {
    statusCode: options.status ?? 200,
    hasHeader: (name: string) => headers.has(name.toLowerCase()),
    getHeader: (name: string) => headers.get(name.toLowerCase()),
  } as unknown as Response;
  return [req, res] as const;
}

const P = '/api/v1/projects/:projectId/stories/:storyId';

describe('shouldCompress', () => {
  it('compresses API responses in a compressible type', () => {
    expect(shouldCompress(...exchange({ pattern: `${P}/attachments` }))).toBe(true);
    expect(shouldCompress(...exchange({}))).toBe(true);
  });

  it('never compresses attachment downloads, even of a compressible type', () => {
    const download = exchange({
      pattern: `${P}/attachments/:attachmentId/content`,
      headers: { 'content-type': 'text/plain' },
    });
    expect(shouldCompress(...download)).toBe(false);
  });

  it('never compresses a range request or a partial answer', () => {
    expect(shouldCompress(...exchange({ range: 'bytes=0-9' }))).toBe(false);
    expect(shouldCompress(...exchange({ status: 206, headers: { 'content-range': 'bytes 0-9/100' } }))).toBe(
      false,
    );
    expect(shouldCompress(...exchange({ status: 416 }))).toBe(false);
  });

  it('leaves types the library deems incompressible alone', () => {
    expect(shouldCompress(...exchange({ headers: { 'content-type': 'image/png' } }))).toBe(false);
  });
});
