import http from 'node:http';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import { GATEWAY_URL, api, createProject, signUp, type SignedUp } from './support';

/**
 * Compression through the real gateway (docs/compat.md §1.3): gzip or deflate when the client accepts it,
 * nothing otherwise; attachment downloads and byte ranges go out as stored. Raw node:http, because fetch
 * would decompress silently.
 */
jest.setTimeout(60_000);

interface Raw {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

function raw(path: string, headers: Record<string, string>): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${GATEWAY_URL}${path}`, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

let owner: SignedUp;
let P: string;
let S: string;

beforeAll(async () => {
  owner = await signUp('gzip');
  const project = await createProject(owner.key);
  P = `/api/v1/projects/${project.id}`;
  // A project whose representation is well over the 1 KiB threshold.
  const updated = await api(P, {
    method: 'PUT',
    key: owner.key,
    body: { description: 'All work and no play makes Jack a dull boy. '.repeat(60) },
  });
  expect(updated.status).toBe(200);
  const story = await api(`${P}/stories`, { method: 'POST', key: owner.key, body: { text: 'compress me' } });
  expect(story.status).toBe(200);
  S = `${P}/stories/${story.json.id}`;
});

it.each([
  ['gzip', gunzipSync],
  ['deflate', inflateSync],
])('answers %s when the client accepts it, the same document once decoded', async (encoding, decode) => {
  const plain = await raw(P, { 'X-Zen-ApiKey': owner.key });
  expect(plain.status).toBe(200);
  expect(plain.headers['content-encoding']).toBeUndefined();
  expect(plain.headers.vary).toMatch(/accept-encoding/i);

  const packed = await raw(P, { 'X-Zen-ApiKey': owner.key, 'Accept-Encoding': encoding });
  expect(packed.status).toBe(200);
  expect(packed.headers['content-encoding']).toBe(encoding);
  expect(packed.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(packed.headers['x-request-id']).toBeTruthy();
  expect(packed.headers['ratelimit-limit']).toBeTruthy();
  expect(packed.body.length).toBeLessThan(plain.body.length / 3);
  expect(JSON.parse(decode(packed.body).toString('utf8'))).toEqual(JSON.parse(plain.body.toString('utf8')));
});

it.each([
  ['gzip', gunzipSync],
  ['deflate', inflateSync],
  ['br', brotliDecompressSync],
])(
  'a cached board read goes out %s-encoded with its length, the same document once decoded',
  async (encoding, decode) => {
    const long = await api(`${P}/stories`, {
      method: 'POST',
      key: owner.key,
      body: { text: `long ${encoding}`, details: 'Steve Holt! '.repeat(200) },
    });
    expect(long.status).toBe(200);
    const page = `${P}/stories?with=details`;
    const plain = await raw(page, { 'X-Zen-ApiKey': owner.key });
    const packed = await raw(page, { 'X-Zen-ApiKey': owner.key, 'Accept-Encoding': encoding });
    const again = await raw(page, { 'X-Zen-ApiKey': owner.key, 'Accept-Encoding': encoding });
    expect(packed.status).toBe(200);
    expect(packed.headers['content-encoding']).toBe(encoding);
    expect(packed.headers['content-length']).toBe(String(packed.body.length));
    expect(packed.headers.vary).toMatch(/accept-encoding/i);
    expect(packed.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(packed.body.length).toBeLessThan(plain.body.length / 3);
    expect(decode(packed.body).toString('utf8')).toBe(plain.body.toString('utf8'));
    expect(again.body.equals(packed.body)).toBe(true);
  },
);

it('compresses XML too, and leaves small bodies alone', async () => {
  const xml = await raw(P, {
    'X-Zen-ApiKey': owner.key,
    Accept: 'application/xml',
    'Accept-Encoding': 'gzip',
  });
  expect(xml.headers['content-encoding']).toBe('gzip');
  expect(gunzipSync(xml.body).toString('utf8')).toMatch(/^<\?xml version="1.0" encoding="utf-8"\?>/);

  const small = await raw('/api/v1/me', { 'X-Zen-ApiKey': owner.key, 'Accept-Encoding': 'gzip' });
  expect(small.headers['content-encoding']).toBeUndefined();
  expect(JSON.parse(small.body.toString('utf8'))).toMatchObject({ userName: owner.userName });
});

it('never compresses attachment downloads or ranges, even of compressible text', async () => {
  const text = Buffer.from('line of very compressible text\n'.repeat(400));
  const body = new FormData();
  body.append('attachment', new Blob([new Uint8Array(text)], { type: 'text/plain' }), 'notes.txt');
  const uploaded = await api(`${S}/attachments`, { method: 'POST', key: owner.key, body });
  expect(uploaded.status).toBe(200);
  const id = (uploaded.json.id ?? uploaded.json.items?.[0]?.id) as number;
  const content = `${S}/attachments/${id}/content`;

  const whole = await raw(content, { 'X-Zen-ApiKey': owner.key, 'Accept-Encoding': 'gzip, deflate' });
  expect(whole.status).toBe(200);
  expect(whole.headers['content-encoding']).toBeUndefined();
  expect(whole.headers['content-length']).toBe(String(text.length));
  expect(whole.body.equals(text)).toBe(true);

  const part = await raw(content, {
    'X-Zen-ApiKey': owner.key,
    'Accept-Encoding': 'gzip',
    Range: 'bytes=100-1999',
  });
  expect(part.status).toBe(206);
  expect(part.headers['content-encoding']).toBeUndefined();
  expect(part.headers['content-range']).toBe(`bytes 100-1999/${text.length}`);
  expect(part.body.equals(text.subarray(100, 2000))).toBe(true);
});
