import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import express, { type Request, type Response } from 'express';
import { bytesOnce, encodedOnce, negotiatedCoding, shouldCompress } from './compress';
import { describeRequest } from './record';
import { Router, type Route } from '../api/router';

/** A request that went through routing, and a response with some headers already set. */
function exchange(options: {
  pattern?: string;
  range?: string;
  status?: number;
  headers?: Record<string, string>;
  method?: string;
  acceptEncoding?: string;
}) {
  // Express's request methods (acceptsEncodings) over a plain object.
  const req = Object.assign(Object.create(express.request) as Request, {
    method: options.method ?? 'GET',
    url: options.pattern ? options.pattern.replace(/:\w+/g, '1') : '/',
    headers: {
      ...(options.range ? { range: options.range } : {}),
      ...(options.acceptEncoding !== undefined ? { 'accept-encoding': options.acceptEncoding } : {}),
    },
  });
  const routes = options.pattern
    ? [{ method: options.method ?? 'GET', pattern: options.pattern } as Route]
    : [];
  describeRequest(req, { requestId: 'r1' }, new Router(routes));
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

  it('never compresses an event stream (the change stream), whatever its route', () => {
    for (const type of ['text/event-stream; charset=utf-8', 'Text/Event-Stream']) {
      expect(shouldCompress(...exchange({ headers: { 'content-type': type } }))).toBe(false);
    }
    expect(shouldCompress(...exchange({ headers: { 'content-type': 'text/plain' } }))).toBe(true);
  });

  it('leaves types the library deems incompressible alone', () => {
    expect(shouldCompress(...exchange({ headers: { 'content-type': 'image/png' } }))).toBe(false);
  });
});

describe('negotiatedCoding: what a body kept compressed goes out as', () => {
  const big = 5_000;
  it('picks the coding the client accepts, by its q-values', () => {
    expect(negotiatedCoding(...exchange({ acceptEncoding: 'gzip' }), big)).toBe('gzip');
    expect(negotiatedCoding(...exchange({ acceptEncoding: 'deflate' }), big)).toBe('deflate');
    expect(negotiatedCoding(...exchange({ acceptEncoding: 'br' }), big)).toBe('br');
    expect(negotiatedCoding(...exchange({ acceptEncoding: 'br;q=0.5, gzip' }), big)).toBe('gzip');
  });

  it('identity (undefined) where the middleware would not compress either', () => {
    expect(negotiatedCoding(...exchange({}), big)).toBeUndefined(); // no Accept-Encoding
    expect(negotiatedCoding(...exchange({ acceptEncoding: 'identity' }), big)).toBeUndefined();
    expect(negotiatedCoding(...exchange({ acceptEncoding: 'compress' }), big)).toBeUndefined();
    expect(negotiatedCoding(...exchange({ acceptEncoding: 'gzip' }), 1023)).toBeUndefined(); // under 1 KiB
    expect(negotiatedCoding(...exchange({ acceptEncoding: 'gzip', method: 'HEAD' }), big)).toBeUndefined();
    expect(
      negotiatedCoding(...exchange({ acceptEncoding: 'gzip', range: 'bytes=0-9' }), big),
    ).toBeUndefined();
  });
});

describe('encodedOnce', () => {
  const body = JSON.stringify({
    items: Array.from({ length: 200 }, (_, id) => ({ id, text: `story ${id}` })),
  });

  it('encodes once per owner and coding, and decodes to the body', async () => {
    const owner = {};
    const gzip = encodedOnce(owner, body, 'gzip');
    expect(encodedOnce(owner, body, 'gzip')).toBe(gzip);
    expect(encodedOnce({}, body, 'gzip')).not.toBe(gzip);
    expect(gunzipSync(await gzip).toString('utf8')).toBe(body);
    expect(brotliDecompressSync(await encodedOnce(owner, body, 'br')).toString('utf8')).toBe(body);
    expect(inflateSync(await encodedOnce(owner, body, 'deflate')).toString('utf8')).toBe(body);
    expect((await gzip).length).toBeLessThan(body.length / 3);
  });

  it('tells the size of each copy it makes, once', async () => {
    const owner = {};
    const kept: number[] = [];
    const gzip = await encodedOnce(owner, body, 'gzip', (bytes) => kept.push(bytes));
    await encodedOnce(owner, body, 'gzip', (bytes) => kept.push(bytes));
    const br = await encodedOnce(owner, body, 'br', (bytes) => kept.push(bytes));
    await new Promise(setImmediate);
    expect(kept).toEqual([gzip.length, br.length]);
  });
});

describe('bytesOnce', () => {
  it("makes an answer's UTF-8 bytes once per owner, telling their size once", () => {
    const owner = {};
    const kept: number[] = [];
    const body = '{"text":"Grüße, 世界"}';
    const bytes = bytesOnce(owner, body, (n) => kept.push(n));
    expect(bytesOnce(owner, body, (n) => kept.push(n))).toBe(bytes);
    expect(bytesOnce({}, body)).not.toBe(bytes);
    expect(bytes.toString('utf8')).toBe(body);
    expect(kept).toEqual([Buffer.byteLength(body)]);
  });
});
