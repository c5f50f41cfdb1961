import type { Response } from 'express';
import { page, resource, empty, sendReply } from './respond';

/** Just enough of an Express response to see what was written. */
function fakeResponse() {
  const headers = new Map<string, string | number>();
  const out = { status: 0, headers, body: undefined as string | undefined };
  const res = {
    status(code: number) {
      out.status = code;
      return res;
    },
    setHeader(name: string, value: string | number) {
      headers.set(name.toLowerCase(), value);
      return res;
    },
    removeHeader(name: string) {
      headers.delete(name.toLowerCase());
    },
    end(body?: string) {
      out.body = body;
    },
  };
  return { res: res as unknown as Response, out };
}

describe('sendReply', () => {
  it('writes a resource as JSON with the exact content type and length', () => {
    const { res, out } = fakeResponse();
    sendReply(res, resource('tag', { id: 1, name: 'hop ons' }), 'json');
    expect(out).toEqual({
      status: 200,
      headers: new Map<string, string | number>([
        ['content-type', 'application/json; charset=utf-8'],
        ['content-length', 25],
      ]),
      body: '{"id":1,"name":"hop ons"}',
    });
  });

  it('writes a page as XML under the plural root', () => {
    const { res, out } = fakeResponse();
    sendReply(res, page('tag', { page: 1, pageSize: 100, totalPages: 0, totalItems: 0, items: [] }), 'xml');
    expect(out.headers.get('content-type')).toBe('application/xml; charset=utf-8');
    expect(out.body).toBe(
      '<?xml version="1.0" encoding="utf-8"?><tags><items /><page>1</page><pageSize>100</pageSize>' +
        '<totalItems>0</totalItems><totalPages>0</totalPages></tags>',
    );
  });

  it('answers deletes with 200, Content-Length 0 and no Content-Type', () => {
    const { res, out } = fakeResponse();
    res.setHeader('Content-Type', 'application/json');
    sendReply(res, empty(), 'json');
    expect(out.status).toBe(200);
    expect(out.headers.get('content-length')).toBe(0);
    expect(out.headers.has('content-type')).toBe(false);
    expect(out.body).toBeUndefined();
  });
});
