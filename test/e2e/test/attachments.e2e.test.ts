import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import { Readable } from 'node:stream';
import { uniqueSuffix } from '@flowboard/testing';
import {
  GATEWAY_URL,
  accessLadderUsers,
  accessMatrix,
  api,
  checkContract,
  createProject,
  signUp,
  XML_HEADERS,
  type Callers,
  type SignedUp,
} from './support';

/**
 * Attachments through the gateway against real files, PostgreSQL and MinIO (spec "Attachments",
 * docs/compat.md §4.2, §5.6, §6): upload, list, get, rename, delete (object included), byte-exact downloads
 * and ranges, XML, and the access matrix (Read lists and downloads; ReadWrite uploads, renames and deletes).
 */
jest.setTimeout(60_000);

let owner: SignedUp;
let reader: SignedUp;
let callers: Callers;
let project: { id: number; name: string };
let P: string; // /api/v1/projects/{p}
let S: string; // /api/v1/projects/{p}/stories/{s}

const sha256 = (data: Uint8Array) => createHash('sha256').update(data).digest('hex');

function form(...files: Array<{ name: string; type: string; data: Uint8Array }>): FormData {
  const body = new FormData();
  for (const f of files)
    body.append('attachment', new Blob([new Uint8Array(f.data)], { type: f.type }), f.name);
  return body;
}

async function upload(
  key: string | undefined,
  ...files: Array<{ name: string; type: string; data: Uint8Array }>
) {
  return api(`${S}/attachments`, { method: 'POST', key, body: form(...files) });
}

async function download(key: string | undefined, id: number, range?: string) {
  const headers: Record<string, string> = {};
  if (key) headers['X-Zen-ApiKey'] = key;
  if (range) headers.Range = range;
  const res = await fetch(`${GATEWAY_URL}${S}/attachments/${id}/content`, { headers });
  return { res, body: Buffer.from(await res.arrayBuffer()) };
}

/** The stack's per-file limit (files MAX_FILE_BYTES; deploy/local/services.sh passes FLOWBOARD_MAX_FILE_BYTES). */
const MAX_FILE_BYTES = Number(process.env.FLOWBOARD_MAX_FILE_BYTES ?? 104_857_600);

/** A story of its own, for tests that count what is stored on it. */
async function newStory(text: string): Promise<string> {
  const res = await api(`${P}/stories`, { method: 'POST', key: owner.key, body: { text } });
  expect(res.status).toBe(200);
  return `${P}/stories/${res.json.id}`;
}

/**
 * A multipart/form-data body written by hand, so a part's Content-Disposition carries exactly the parameters
 * given (FormData would percent-escape quotes and line breaks in a file name).
 */
function rawMultipart(boundary: string, parts: Array<{ disposition: string; data: string }>): Buffer {
  const chunks = parts.map(
    (p) =>
      `--${boundary}\r\nContent-Disposition: form-data; name="attachment"; ${p.disposition}\r\n` +
      `Content-Type: text/plain\r\n\r\n${p.data}\r\n`,
  );
  return Buffer.from(`${chunks.join('')}--${boundary}--\r\n`, 'utf8');
}

/** `Content-Disposition: attachment; filename="<quoted ASCII>"; filename*=UTF-8''<RFC 5987>`, or a failure. */
function parseDisposition(header: string | null): { fallback: string; name: string } {
  const m =
    /^attachment; filename="((?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\["\\])*)"; filename\*=UTF-8''([A-Za-z0-9!#$&+.^_`|~%-]+)$/.exec(
      header ?? '',
    );
  if (!m) throw new Error(`unsafe or malformed Content-Disposition: ${JSON.stringify(header)}`);
  return { fallback: m[1]!.replace(/\\(["\\])/g, '$1'), name: decodeURIComponent(m[2]!) };
}

beforeAll(async () => {
  owner = await signUp('att-owner');
  project = await createProject(owner.key);
  P = `/api/v1/projects/${project.id}`;
  const ladder = await accessLadderUsers(owner, project.id);
  callers = ladder.callers;
  reader = ladder.users.read;
  const story = await api(`${P}/stories`, {
    method: 'POST',
    key: owner.key,
    body: { text: 'Build the Spec house' },
  });
  expect(story.status).toBe(200);
  S = `${P}/stories/${story.json.id}`;
});

describe('attachments end to end', () => {
  it('uploads, lists, gets, renames (JSON and XML), downloads byte-exact and deletes the object', async () => {
    const big = randomBytes(3 * 1024 * 1024 + 11);
    const up = await upload(
      owner.key,
      { name: 'plan.bin', type: 'application/octet-stream', data: big },
      { name: 'notes.txt', type: 'text/plain', data: Buffer.from('hello') },
    );
    expect(up.status).toBe(200);
    const [bin, txt] = up.json.items as Array<{ id: number; token: string }>;

    const list = await api(`${S}/attachments`, { key: reader.key });
    expect(list.status).toBe(200);
    expect(list.json).toMatchObject({ page: 1, totalItems: 2 });
    expect(list.json.items.map((a: { id: number }) => a.id)).toEqual([bin!.id, txt!.id]);
    expect(Object.keys(list.json.items[0])).toEqual([
      'id',
      'fileName',
      'sizeInBytes',
      'contentType',
      'token',
    ]);
    expect(list.json.items[0]).toMatchObject({ fileName: 'plan.bin', sizeInBytes: big.length });

    const xml = await api(`${S}/attachments`, { key: reader.key, headers: XML_HEADERS });
    expect(xml.text).toMatch(/^<\?xml version="1.0" encoding="utf-8"\?><attachments><items><attachment>/);
    expect(xml.text).toContain('<fileName>notes.txt</fileName>');

    const got = await api(`${S}/attachments/${txt!.id}`, { key: reader.key });
    expect(got.json).toEqual({
      id: txt!.id,
      fileName: 'notes.txt',
      sizeInBytes: 5,
      contentType: 'text/plain',
      token: txt!.token,
    });

    const renamed = await api(`${S}/attachments/${txt!.id}`, {
      method: 'PUT',
      key: owner.key,
      body: { filename: '../../Réunion\u202E notes.md', sizeInBytes: 1 },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.json).toMatchObject({ fileName: 'Réunion notes.md', sizeInBytes: 5 });
    const renamedXml = await api(`${S}/attachments/${txt!.id}`, {
      method: 'PUT',
      key: owner.key,
      headers: { 'Content-Type': 'application/xml', Accept: 'application/xml' },
      body: '<?xml version="1.0"?><attachment><fileName>final.md</fileName></attachment>',
    });
    expect(renamedXml.status).toBe(200);
    expect(renamedXml.text).toContain('<fileName>final.md</fileName>');

    const whole = await download(reader.key, bin!.id);
    expect(whole.res.status).toBe(200);
    expect(whole.res.headers.get('accept-ranges')).toBe('bytes');
    expect(sha256(whole.body)).toBe(sha256(big));
    const named = await download(reader.key, txt!.id);
    expect(named.res.headers.get('content-disposition')).toBe(
      'attachment; filename="final.md"; filename*=UTF-8\'\'final.md',
    );

    const del = await api(`${S}/attachments/${bin!.id}`, { method: 'DELETE', key: owner.key });
    expect(del.status).toBe(200);
    expect(del.text).toBe('');
    expect(del.headers.get('content-type')).toBeNull();
    expect((await api(`${S}/attachments/${bin!.id}`, { key: owner.key })).status).toBe(404);
    expect((await download(owner.key, bin!.id)).res.status).toBe(404);
    const after = await api(`${S}/attachments`, { key: owner.key });
    expect(after.json.items.map((a: { id: number }) => a.id)).toEqual([txt!.id]);
  });

  it('serves byte ranges: 206 byte-exact, 416 unsatisfiable, several ranges → 200 whole', async () => {
    const data = randomBytes(100_000);
    const up = await upload(owner.key, { name: 'r.bin', type: 'application/octet-stream', data });
    const id = up.json.items[0].id as number;
    const a = await download(reader.key, id, 'bytes=1000-1999');
    expect(a.res.status).toBe(206);
    expect(a.res.headers.get('content-range')).toBe('bytes 1000-1999/100000');
    expect(a.body.equals(data.subarray(1000, 2000))).toBe(true);
    const tail = await download(reader.key, id, 'bytes=-10');
    expect(tail.res.status).toBe(206);
    expect(tail.body.equals(data.subarray(99_990))).toBe(true);
    const open = await download(reader.key, id, 'bytes=99999-');
    expect(open.body.equals(data.subarray(99_999))).toBe(true);
    const bad = await download(reader.key, id, 'bytes=100000-');
    expect(bad.res.status).toBe(416);
    expect(bad.res.headers.get('content-range')).toBe('bytes */100000');
    const several = await download(reader.key, id, 'bytes=0-1,5-9');
    expect(several.res.status).toBe(200);
    expect(sha256(several.body)).toBe(sha256(data));
  });

  it('where is accepted but every property is 400 invalid-filter', async () => {
    expect((await api(`${S}/attachments?where=`, { key: reader.key })).status).toBe(200);
    const res = await api(`${S}/attachments?where=${encodeURIComponent('fileName:x')}`, { key: reader.key });
    expect(res.status).toBe(400);
    expect(res.json.type).toBe('urn:flowboard:problem:invalid-filter');
  });

  it('access matrix: Read lists, gets and downloads; ReadWrite uploads, renames and deletes', async () => {
    const up = await upload(owner.key, { name: 'x.txt', type: 'text/plain', data: Buffer.from('x') });
    const id = up.json.items[0].id as number;
    const one = `${S}/attachments/${id}`;
    const matrix = await accessMatrix(callers, async (key) => {
      const mine = await upload(key, { name: 'y.txt', type: 'text/plain', data: Buffer.from('y') });
      // A caller allowed to upload deletes their own file; a refused one tries the owner's (and must fail).
      const target = mine.status === 200 ? `${S}/attachments/${mine.json.items[0].id}` : one;
      return [
        (await api(`${S}/attachments`, { key })).status,
        (await api(one, { key })).status,
        (await download(key, id)).res.status,
        mine.status,
        (await api(one, { method: 'PUT', key, body: { filename: 'x.txt' } })).status,
        (await api(target, { method: 'DELETE', key })).status,
      ];
    });
    expect(matrix).toEqual({
      anonymous: [401, 401, 401, 401, 401, 401],
      stranger: [404, 404, 404, 404, 404, 404],
      none: [403, 403, 403, 403, 403, 403],
      read: [200, 200, 200, 403, 403, 403],
      readwrite: [200, 200, 200, 200, 200, 200],
      admin: [200, 200, 200, 200, 200, 200],
    });
    // Still there, unchanged, and the uploads allowed were deleted again by their callers.
    expect((await api(one, { key: owner.key })).json.fileName).toBe('x.txt');
    const left = await api(`${S}/attachments`, { key: owner.key });
    expect(left.json.items.map((a: { fileName: string }) => a.fileName)).not.toContain('y.txt');
  });

  it('lists in pages: three files, pageSize=2 → page 2 holds the third, with correct totals', async () => {
    const T = await newStory('Paged attachments');
    const files = ['one.txt', 'two.txt', 'three.txt'].map((name) => ({
      name,
      type: 'text/plain',
      data: Buffer.from(name),
    }));
    const up = await api(`${T}/attachments`, { method: 'POST', key: owner.key, body: form(...files) });
    expect(up.status).toBe(200);
    const ids = up.json.items.map((a: { id: number }) => a.id) as number[];
    expect(ids).toHaveLength(3);

    const page1 = await api(`${T}/attachments?pageSize=2`, { key: reader.key });
    expect(page1.json).toMatchObject({ page: 1, pageSize: 2, totalPages: 2, totalItems: 3 });
    expect(page1.json.items.map((a: { id: number }) => a.id)).toEqual(ids.slice(0, 2));
    const page2 = await api(`${T}/attachments?pageSize=2&page=2`, { key: reader.key });
    expect(page2.status).toBe(200);
    expect(page2.json).toEqual({
      page: 2,
      pageSize: 2,
      totalPages: 2,
      totalItems: 3,
      items: [
        {
          id: ids[2],
          fileName: 'three.txt',
          sizeInBytes: 9,
          contentType: 'text/plain',
          token: expect.any(String),
        },
      ],
    });
    const past = await api(`${T}/attachments?pageSize=2&page=3`, { key: reader.key });
    expect(past.json).toEqual({ page: 3, pageSize: 2, totalPages: 2, totalItems: 3, items: [] });
  });

  it('hostile file names: the path is dropped, control characters removed, the download header stays safe', async () => {
    const boundary = `flowboard-${uniqueSuffix()}`;
    const up = await api(`${S}/attachments`, {
      method: 'POST',
      key: owner.key,
      headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}` },
      body: rawMultipart(boundary, [
        { disposition: 'filename="../../etc/passwd"', data: 'root' },
        // RFC 5987 form: the name really holds a quote, CR and LF (a quoted filename cannot carry raw CR/LF).
        { disposition: "filename*=UTF-8''a%22%0D%0AX-Evil%3A%201.txt", data: 'evil' },
        { disposition: 'filename="résumé 東京.txt"', data: 'unicode' },
      ]),
    });
    expect(up.status).toBe(200);
    const [passwd, evil, unicode] = up.json.items as Array<{ id: number; fileName: string }>;
    expect(passwd!.fileName).toBe('passwd');
    expect(evil!.fileName).toMatch(/^a"[ _]*X-Evil: 1\.txt$/);
    expect(unicode!.fileName).toBe('résumé 東京.txt');
    for (const a of [passwd!, evil!, unicode!]) {
      const stored = await api(`${S}/attachments/${a.id}`, { key: reader.key });
      expect(stored.json.fileName).toBe(a.fileName);
      expect(stored.json.fileName).not.toMatch(/[/\\\p{Cc}]/u);
    }

    const headerOf = async (id: number) => {
      const { res, body } = await download(reader.key, id);
      expect(res.status).toBe(200);
      expect(body.length).toBeGreaterThan(0);
      expect(res.headers.get('x-evil')).toBeNull(); // no header smuggled in through the name
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      return parseDisposition(res.headers.get('content-disposition'));
    };
    expect(await headerOf(passwd!.id)).toEqual({ fallback: 'passwd', name: 'passwd' });
    // The quote survives only escaped (\") inside the quoted fallback, and percent-encoded in filename*.
    expect(await headerOf(evil!.id)).toEqual({ fallback: evil!.fileName, name: evil!.fileName });
    const unicodeHeader = await headerOf(unicode!.id);
    expect(unicodeHeader.name).toBe('résumé 東京.txt'); // exact, through filename*=UTF-8''…
    expect(unicodeHeader.fallback).toMatch(/^r.sum. .*\.txt$/); // printable ASCII only (checked by the parse)
  });

  it('a part without a Content-Type is stored as application/octet-stream', async () => {
    const T = await newStory('Untyped part');
    const boundary = `flowboard-${uniqueSuffix()}`;
    const up = await api(`${T}/attachments`, {
      method: 'POST',
      key: owner.key,
      headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}` },
      body: Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="blob.bin"\r\n\r\n\u0001\u0002\r\n--${boundary}--\r\n`,
      ),
    });
    expect(up.status).toBe(200);
    expect(up.json.items).toMatchObject([
      { fileName: 'blob.bin', sizeInBytes: 2, contentType: 'application/octet-stream' },
    ]);
  });

  it("an upload sent with Expect: 100-continue (curl's way for bodies over 1 MB) is stored", async () => {
    const T = await newStory('Expects');
    const boundary = `flowboard-${uniqueSuffix()}`;
    const content = randomBytes(1_500_000);
    const body = Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\n` +
          'Content-Type: application/octet-stream\r\n\r\n',
      ),
      content,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const answer = await new Promise<{ status: number; text: string; continued: boolean }>(
      (resolve, reject) => {
        let continued = false;
        const request = http.request(new URL(`${T}/attachments`, GATEWAY_URL), {
          method: 'POST',
          headers: {
            'X-Zen-ApiKey': owner.key,
            'Content-Type': `multipart/form-data; boundary=${boundary}`,
            'Content-Length': body.length,
            Expect: '100-continue',
          },
        });
        request.on('continue', () => {
          continued = true;
          request.end(body);
        });
        request.on('response', (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString(), continued }),
          );
        });
        request.on('error', reject);
      },
    );
    expect(answer).toMatchObject({ status: 200, continued: true });
    const [stored] = JSON.parse(answer.text).items as Array<{ id: number; sizeInBytes: number }>;
    expect(stored!.sizeInBytes).toBe(content.length);
    const bytes = await fetch(`${GATEWAY_URL}${T}/attachments/${stored!.id}/content`, {
      headers: { 'X-Zen-ApiKey': owner.key },
    }).then(async (res) => Buffer.from(await res.arrayBuffer()));
    expect(sha256(bytes)).toBe(sha256(content));
  });

  it('a file over the per-file limit is 413 payload-too-large, and nothing of the request is stored', async () => {
    const T = await newStory('Too big');
    const kept = await api(`${T}/attachments`, {
      method: 'POST',
      key: owner.key,
      body: form({ name: 'kept.txt', type: 'text/plain', data: Buffer.from('kept') }),
    });
    expect(kept.status).toBe(200);
    const listBefore = (await api(`${T}/attachments`, { key: owner.key })).json;
    const usedBefore = (await api('/api/v1/me/account', { key: owner.key })).json.storageUsedBytes as number;

    // A small file, then one a byte over the limit, streamed (never held in memory) with a Content-Length.
    const boundary = `flowboard-${uniqueSuffix()}`;
    const part = (name: string) =>
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="attachment"; filename="${name}"\r\n` +
          'Content-Type: application/octet-stream\r\n\r\n',
      );
    const small = Buffer.concat([part('small.txt'), Buffer.from('small\r\n')]);
    const bigHead = part('big.bin');
    const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
    const size = MAX_FILE_BYTES + 1;
    const block = Buffer.alloc(1024 * 1024, 0x5a);
    async function* body() {
      yield small;
      yield bigHead;
      for (let left = size; left > 0; left -= block.length)
        yield block.subarray(0, Math.min(left, block.length));
      yield tail;
    }
    const started = Date.now();
    const res = await fetch(`${GATEWAY_URL}${T}/attachments`, {
      method: 'POST',
      headers: {
        'X-Zen-ApiKey': owner.key,
        'Content-Type': `multipart/form-data; boundary=${boundary}`,
        'Content-Length': String(small.length + bigHead.length + size + tail.length),
      },
      body: Readable.from(body()),
      duplex: 'half',
    } as RequestInit);
    const text = await res.text();
    const json = /json/.test(res.headers.get('content-type') ?? '') ? JSON.parse(text) : undefined;
    await checkContract(
      { method: 'POST', path: `${T}/attachments` },
      { status: res.status, headers: res.headers, text, json },
    );
    expect(res.status).toBe(413);
    expect(json).toMatchObject({
      type: 'urn:flowboard:problem:payload-too-large',
      status: 413,
      requestId: res.headers.get('x-request-id'),
    });
    expect(Date.now() - started).toBeLessThan(20_000);

    expect((await api(`${T}/attachments`, { key: owner.key })).json).toEqual(listBefore);
    expect((await api('/api/v1/me/account', { key: owner.key })).json.storageUsedBytes).toBe(usedBefore);
  });

  it('an unknown story or attachment is 404', async () => {
    const missingStory = S.replace(/stories\/\d+$/, 'stories/987654321');
    expect((await api(`${missingStory}/attachments`, { key: owner.key })).status).toBe(404);
    expect((await api(`${S}/attachments/987654321`, { key: owner.key })).status).toBe(404);
    expect(
      (await api(`${S}/attachments/987654321`, { method: 'PUT', key: owner.key, body: { filename: 'a' } }))
        .status,
    ).toBe(404);
  });
});
