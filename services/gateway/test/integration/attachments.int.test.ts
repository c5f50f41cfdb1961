import { randomBytes } from 'node:crypto';
import { apiClient } from '@flowboard/testing';
import { startHarness, type Harness } from './support/boot';

let h: Harness;
let api: ReturnType<typeof apiClient>;
let key: string;
let userId: number;
let base: string;

beforeAll(async () => {
  h = await startHarness();
  api = apiClient(h.baseUrl);
  const gob = h.membership.addUser('Gob');
  key = gob.key;
  userId = gob.user.id;
  const projectId = h.membership.addProject(gob.user, 'Sudden Valley').project.id;
  const story = await api(`/api/v1/projects/${projectId}/stories`, {
    key,
    method: 'POST',
    body: { text: 'Build Spec house' },
  });
  base = `/api/v1/projects/${projectId}/stories/${story.json.id}/attachments`;
});
afterAll(() => h.stop());

function multipart(boundary: string): Buffer {
  return Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="attachment"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\n`,
    ),
    Buffer.from('abc'),
    Buffer.from(
      `\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="b.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
    ),
    randomBytes(4096),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
}

describe('attachments', () => {
  it('upload: the raw multipart bytes reach files, credentials do not; the answer is a page', async () => {
    const boundary = 'flowboard-test-boundary';
    const body = multipart(boundary);
    const res = await api(`${base}?apikey=${key}`, {
      method: 'POST',
      body: new Uint8Array(body),
      headers: {
        'Content-Type': `multipart/form-data; boundary=${boundary}`,
        'X-Request-Id': 'upload-1',
        Cookie: 'a=b',
        // A caller cannot pick the account or the limit: the gateway's own values replace these.
        'X-Flowboard-Account-Id': '999',
        'X-Flowboard-Storage-Limit': String(2 ** 52),
      },
    });
    expect(res.status).toBe(200);
    expect(res.text).toBe(
      '{"page":1,"pageSize":100,"totalPages":1,"totalItems":2,"items":[' +
        `{"id":1,"fileName":"a.txt","sizeInBytes":3,"contentType":"text/plain","token":"${'a'.repeat(32)}"},` +
        `{"id":2,"fileName":"plans & \\"specs\\".txt","sizeInBytes":5,"contentType":"text/plain","token":"${'b'.repeat(32)}"}]}`,
    );
    const received = h.files.received.at(-1)!;
    expect(received.method).toBe('POST');
    expect(received.url).toBe(base.replace('/api/v1', '/internal'));
    expect(received.body.equals(body)).toBe(true);
    expect(received.headers['content-type']).toBe(`multipart/form-data; boundary=${boundary}`);
    expect(received.headers['x-flowboard-user-id']).toBe(String(userId));
    expect(received.headers['x-request-id']).toBe('upload-1');
    // The project's account (its owner, from membership) and its limit, for the files quota.
    expect(received.headers['x-flowboard-account-id']).toBe(String(userId));
    expect(received.headers['x-flowboard-storage-limit']).toBe(String(h.membership.storageLimitBytes));
    expect(received.headers['x-zen-apikey']).toBeUndefined();
    expect(received.headers.cookie).toBeUndefined();
    expect(received.url).not.toContain(key);
  });

  it('upload answered in XML: attachments/items/attachment', async () => {
    const res = await api(`${base}.xml`, {
      key,
      method: 'POST',
      body: new Uint8Array(multipart('b1')),
      headers: { 'Content-Type': 'multipart/form-data; boundary=b1' },
    });
    expect(res.text).toMatch(
      /^<\?xml version="1\.0" encoding="utf-8"\?><attachments><items><attachment><contentType>text\/plain<\/contentType><fileName>a\.txt<\/fileName><id>1<\/id>/,
    );
    expect(res.text).toContain('<fileName>plans &amp; "specs".txt</fileName>');
    expect(res.text).toMatch(
      /<\/items><page>1<\/page><pageSize>100<\/pageSize><totalItems>2<\/totalItems><totalPages>1<\/totalPages><\/attachments>$/,
    );
  });

  it('upload: not multipart → 400; unknown story → 404 before files is asked', async () => {
    const before = h.files.received.length;
    expect((await api(base, { key, method: 'POST', body: { fileName: 'x' } })).status).toBe(400);
    const missing = base.replace(/stories\/\d+/, 'stories/999');
    const res = await api(missing, {
      key,
      method: 'POST',
      body: new Uint8Array(multipart('b2')),
      headers: { 'Content-Type': 'multipart/form-data; boundary=b2' },
    });
    expect(res.status).toBe(404);
    expect(h.files.received.length).toBe(before);
  });

  it('upload: a files error becomes a problem (402 plan limit)', async () => {
    h.files.refuseNextUpload = {
      status: 402,
      body: { kind: 'PlanLimitExceeded', problem: 'plan-limit', message: 'Storage limit reached.' },
    };
    const res = await api(base, {
      key,
      method: 'POST',
      body: new Uint8Array(multipart('b3')),
      headers: { 'Content-Type': 'multipart/form-data; boundary=b3', Accept: 'application/xml' },
    });
    expect(res.status).toBe(402);
    expect(res.text).toContain('<detail>Storage limit reached.</detail>');
    expect(res.text).toContain('<type>urn:flowboard:problem:plan-limit</type>');
  });

  it('download streams the bytes back unchanged with the safe headers only', async () => {
    h.files.content = randomBytes(300_000);
    const res = await fetch(`${h.baseUrl}${base}/1/content`, { headers: { 'X-Zen-ApiKey': key } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/octet-stream');
    expect(res.headers.get('content-length')).toBe('300000');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="plans.bin"');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-internal-secret')).toBeNull();
    expect(res.headers.get('x-request-id')).toBeTruthy();
    expect(Buffer.from(await res.arrayBuffer()).equals(h.files.content)).toBe(true);
  });

  it('download: an unknown attachment → 404 problem from the files answer', async () => {
    const res = await api(`${base}/7/content`, { key });
    expect(res.status).toBe(404);
    expect(res.json).toMatchObject({
      type: 'urn:flowboard:problem:not-found',
      detail: 'No such attachment.',
    });
  });

  it('files unreachable → 503', async () => {
    const other = await h.gateway({ FILES_HTTP_URL: 'http://127.0.0.1:1' });
    const res = await apiClient(other.baseUrl)(`${base}/1/content`, { key });
    expect(res.status).toBe(503);
    expect(res.json.type).toBe('urn:flowboard:problem:unavailable');
  });
});

describe('attachment metadata and ranges', () => {
  const ids = () => {
    const [, p, s] = /projects\/(\d+)\/stories\/(\d+)/.exec(base)!;
    return [Number(p), Number(s)] as const;
  };

  it('lists (JSON and XML, by id), gets, renames and deletes through files gRPC', async () => {
    const [p, s] = ids();
    const a = h.files.add(p, s, 'a.txt');
    const b = h.files.add(p, s, 'b.txt');
    h.files.add(p, s + 1000, 'elsewhere.txt');
    const list = await api(base, { key });
    expect(list.status).toBe(200);
    expect(list.json.items.map((x: { id: number }) => x.id)).toEqual([a.id, b.id]);
    expect(list.json.items[0]).toEqual({
      id: a.id,
      fileName: 'a.txt',
      sizeInBytes: 3,
      contentType: 'text/plain',
      token: a.token,
    });
    const xml = await api(`${base}.xml`, { key });
    expect(xml.text).toMatch(/^<\?xml[^>]*><attachments><items><attachment>/);

    const got = await api(`${base}/${b.id}`, { key });
    expect(got.json).toMatchObject({ id: b.id, fileName: 'b.txt' });
    const gotXml = await api(`${base}/${b.id}.xml`, { key });
    expect(gotXml.text).toContain(
      `<attachment><contentType>text/plain</contentType><fileName>b.txt</fileName><id>${b.id}</id>`,
    );

    const renamed = await api(`${base}/${b.id}`, {
      key,
      method: 'PUT',
      body: { fileName: 'c.txt', size: 9 },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.json).toMatchObject({ id: b.id, fileName: 'c.txt', sizeInBytes: 3 });
    const renamed2 = await api(`${base}/${b.id}`, { key, method: 'PUT', body: { filename: 'd.txt' } });
    expect(renamed2.json.fileName).toBe('d.txt');
    const unchanged = await api(`${base}/${b.id}`, { key, method: 'PUT', body: { other: 1 } });
    expect(unchanged.json.fileName).toBe('d.txt');

    const del = await api(`${base}/${a.id}`, { key, method: 'DELETE' });
    expect(del.status).toBe(200);
    expect(del.text).toBe('');
    expect(del.headers.get('content-type')).toBeNull();
    expect(h.files.attachments.has(a.id)).toBe(false);
    expect((await api(`${base}/${a.id}`, { key })).status).toBe(404);
    expect((await api(`${base}/${a.id}`, { key, method: 'DELETE' })).status).toBe(404);
  });

  it('where is passed to files (any property → 400 invalid-filter); with= unknown on get → 400', async () => {
    const [p, s] = ids();
    const a = h.files.add(p, s, 'w.txt');
    const res = await api(`${base}?where=${encodeURIComponent('fileName:x')}`, { key });
    expect(res.status).toBe(400);
    expect(res.json.type).toBe('urn:flowboard:problem:invalid-filter');
    expect(h.files.lastList?.where).toBe('fileName:x');
    expect((await api(`${base}/${a.id}?with=tags`, { key })).status).toBe(400);
  });

  it('an unknown story is 404 before files is asked; a missing attachment with a bad body is 404', async () => {
    const missing = base.replace(/stories\/\d+/, 'stories/999');
    expect((await api(missing, { key })).status).toBe(404);
    expect((await api(`${missing}/1`, { key, method: 'DELETE' })).status).toBe(404);
    const res = await api(`${base}/424242`, {
      key,
      method: 'PUT',
      body: '{not json',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(res.status).toBe(404);
  });

  it('download passes Range to files and 206/416 back with Content-Range', async () => {
    h.files.content = randomBytes(1000);
    const url = `${h.baseUrl}${base}/1/content`;
    const partial = await fetch(url, { headers: { 'X-Zen-ApiKey': key, Range: 'bytes=10-19' } });
    expect(partial.status).toBe(206);
    expect(partial.headers.get('content-range')).toBe('bytes 10-19/1000');
    expect(partial.headers.get('content-length')).toBe('10');
    expect(partial.headers.get('accept-ranges')).toBe('bytes');
    expect(Buffer.from(await partial.arrayBuffer()).equals(h.files.content.subarray(10, 20))).toBe(true);
    expect(h.files.received.at(-1)!.headers.range).toBe('bytes=10-19');
    const unsatisfiable = await fetch(url, { headers: { 'X-Zen-ApiKey': key, Range: 'bytes=5000-5001' } });
    expect(unsatisfiable.status).toBe(416);
    expect(unsatisfiable.headers.get('content-range')).toBe('bytes */1000');
    expect((await unsatisfiable.arrayBuffer()).byteLength).toBe(0);
  });
});
