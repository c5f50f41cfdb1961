import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import * as grpc from '@grpc/grpc-js';
import { createPool, migrate } from '@flowboard/pg-kit';
import type { files } from '@flowboard/proto';
import { createLogger } from '@flowboard/service-kit';
import { installInMemoryTracing, traceparent, waitFor, type InMemoryTracing } from '@flowboard/testing';
import type { FilesApp } from '../../src/app';
import { createMinioClient } from '../../src/blob/minio-blob-store';
import { MIGRATIONS_DIR } from '../../src/db/migrations-dir';
import { MAX_PARTS } from '../../src/http/multipart';
import { env, startFiles, testConfig, callAs } from './harness';

// Real PostgreSQL (schema `files`), real MinIO, the real gRPC and HTTP servers on port 0.

const MiB = 1024 * 1024;
// Odd on purpose, and above the 8 MiB part size, so a file of exactly the limit goes through a multipart upload.
const MAX_FILE_BYTES = 9 * MiB + 17;
const USER = 42;
// The account every upload here counts against, with room for all of them (quota tests: quota.int.test.ts).
const ACCOUNT = 1_000_000_000 + Math.floor(Math.random() * 8_000_000_000_000);

let app: FilesApp;
let tracing: InMemoryTracing;
let base: string;
let client: files.FilesServiceClient;
const db = createPool({
  connectionString: env.FILES_DATABASE_URL,
  schema: 'files',
  applicationName: 'files-test',
  max: 2,
});
const s3 = createMinioClient({
  endpoint: env.S3_ENDPOINT,
  region: env.S3_REGION,
  accessKey: env.S3_ACCESS_KEY,
  secretKey: env.S3_SECRET_KEY,
});

// Each test uses its own project: random ids far above anything a real run creates.
const newProjectId = () => 1_000_000_000 + Math.floor(Math.random() * 8_000_000_000_000);

beforeAll(async () => {
  tracing = installInMemoryTracing();
  await migrate(db, { schema: 'files', dir: MIGRATIONS_DIR });
  await migrate(db, { schema: 'files', dir: MIGRATIONS_DIR }); // idempotent
  // Never the real service's group: it would take its partitions.
  ({ app, base, client } = await startFiles(
    testConfig(`files-int-${ACCOUNT}`, { MAX_FILE_BYTES: String(MAX_FILE_BYTES) }),
    createLogger('files-test', 'silent'),
  ));
});

afterAll(async () => {
  client?.close();
  await app?.stop();
  await db.end();
  await tracing?.shutdown();
});

// --- helpers ---------------------------------------------------------------------------------------------

const sha256 = (data: Uint8Array) => createHash('sha256').update(data).digest('hex');
const attachmentsUrl = (p: number, s: number) => `${base}/internal/projects/${p}/stories/${s}/attachments`;
const contentUrl = (p: number, s: number, a: number) => `${attachmentsUrl(p, s)}/${a}/content`;
const gatewayHeaders = (extra: Record<string, string> = {}) => ({
  'x-flowboard-user-id': String(USER),
  'x-request-id': 'files-int-test',
  'x-flowboard-account-id': String(ACCOUNT),
  'x-flowboard-storage-limit': String(2 ** 50),
  ...extra,
});

interface UploadedItem {
  id: number;
  fileName: string;
  sizeInBytes: number;
  contentType: string;
  token: string;
}

async function upload(p: number, s: number, body: FormData | Buffer, headers: Record<string, string> = {}) {
  const res = await fetch(attachmentsUrl(p, s), { method: 'POST', headers: gatewayHeaders(headers), body });
  return {
    status: res.status,
    headers: res.headers,
    json: (await res.json()) as { items: UploadedItem[] } & Record<string, unknown>,
  };
}

/** A multipart body written by hand, for file names no well-behaved client would send. */
function rawMultipart(parts: Array<{ disposition: string; type?: string; data: string | Buffer }>) {
  const boundary = `----flowboard${randomBytes(8).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    let head = `--${boundary}\r\nContent-Disposition: ${part.disposition}\r\n`;
    if (part.type) head += `Content-Type: ${part.type}\r\n`;
    chunks.push(Buffer.from(`${head}\r\n`, 'utf8'), Buffer.from(part.data), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

function listObjects(prefix: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const keys: string[] = [];
    s3.listObjectsV2(env.S3_BUCKET, prefix, true)
      .on('data', (item) => item.name && keys.push(item.name))
      .on('error', reject)
      .on('end', () => resolve(keys.sort()));
  });
}

const call = <Res>(
  method: 'ListAttachments' | 'GetAttachment' | 'RenameAttachment' | 'DeleteAttachment',
  request: object,
): Promise<Res> => callAs<Res>(client, USER, method, request);

const listAttachments = (p: number, s: number) =>
  call<files.ListAttachmentsResponse__Output>('ListAttachments', { project_id: p, story_id: s }).then(
    (r) => r.attachments,
  );

async function grpcError(promise: Promise<unknown>): Promise<grpc.ServiceError> {
  try {
    await promise;
  } catch (e) {
    return e as grpc.ServiceError;
  }
  throw new Error('expected the call to fail');
}

// --- tests -----------------------------------------------------------------------------------------------

describe('upload and download', () => {
  it('stores two files from one request, lists them, and serves them byte for byte', async () => {
    const p = newProjectId();
    const s = 3;
    const small = Buffer.from('abc');
    const large = randomBytes(MAX_FILE_BYTES); // exactly the limit: accepted, and sent as a multipart upload
    const form = new FormData();
    form.append('note', 'a non-file field, ignored');
    form.append('attachment', new Blob([small], { type: 'text/plain' }), 'a.txt');
    form.append('file', new Blob([large], { type: 'application/octet-stream' }), 'big.bin');

    const res = await upload(p, s, form);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const [a, b] = res.json.items;
    expect(res.json.items).toHaveLength(2);
    expect(a).toEqual({
      id: expect.any(Number),
      fileName: 'a.txt',
      sizeInBytes: 3,
      contentType: 'text/plain',
      token: expect.stringMatching(/^[0-9a-f]{32}$/),
      version: 1,
    });
    expect(b).toMatchObject({
      fileName: 'big.bin',
      sizeInBytes: MAX_FILE_BYTES,
      contentType: 'application/octet-stream',
    });
    expect(b!.id).toBeGreaterThan(a!.id);

    // Rows (over gRPC) and objects (in the bucket, keyed by token only).
    const listed = await listAttachments(p, s);
    expect(listed).toEqual([
      {
        id: a!.id,
        project_id: p,
        story_id: s,
        file_name: 'a.txt',
        size_in_bytes: 3,
        content_type: 'text/plain',
        token: a!.token,
        version: 1,
      },
      {
        id: b!.id,
        project_id: p,
        story_id: s,
        file_name: 'big.bin',
        size_in_bytes: MAX_FILE_BYTES,
        content_type: 'application/octet-stream',
        token: b!.token,
        version: 1,
      },
    ]);
    expect(await listObjects(`${p}/`)).toEqual([`${p}/${s}/${a!.token}`, `${p}/${s}/${b!.token}`].sort());
    const got = await call<files.GetAttachmentResponse__Output>('GetAttachment', {
      project_id: p,
      story_id: s,
      attachment_id: b!.id,
    });
    expect(got.attachment).toEqual(listed[1]);

    for (const [item, bytes] of [
      [a!, small],
      [b!, large],
    ] as const) {
      const download = await fetch(contentUrl(p, s, item.id), { headers: gatewayHeaders() });
      expect(download.status).toBe(200);
      expect(download.headers.get('content-type')).toBe(item.contentType);
      expect(download.headers.get('content-length')).toBe(String(bytes.length));
      expect(download.headers.get('content-disposition')).toBe(
        `attachment; filename="${item.fileName}"; filename*=UTF-8''${item.fileName}`,
      );
      expect(download.headers.get('x-content-type-options')).toBe('nosniff');
      expect(sha256(new Uint8Array(await download.arrayBuffer()))).toBe(sha256(bytes));
    }

    const head = await fetch(contentUrl(p, s, a!.id), { method: 'HEAD', headers: gatewayHeaders() });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe('3');
  });

  it('serves an upload as a span of the gateway’s trace (traceparent from the proxied request)', async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const gatewaySpan = '00f067aa0ba902b7';
    const form = new FormData();
    form.append('file', new Blob(['x']), 'traced.txt');
    const res = await upload(newProjectId(), 1, form, { traceparent: traceparent(traceId, gatewaySpan) });
    expect(res.status).toBe(200);
    const span = tracing.exporter.getFinishedSpans().find((s) => s.spanContext().traceId === traceId);
    expect(span?.name).toBe('files POST');
    expect(span?.parentSpanContext?.spanId).toBe(gatewaySpan);
  });

  it('keeps Unicode file names intact', async () => {
    const p = newProjectId();
    const form = new FormData();
    form.append('file', new Blob(['x'], { type: 'text/plain' }), 'cafe\u0301 日本.txt');
    const res = await upload(p, 1, form);
    expect(res.status).toBe(200);
    expect(res.json.items[0]!.fileName).toBe('caf\u00e9 日本.txt'); // NFC
    const download = await fetch(contentUrl(p, 1, res.json.items[0]!.id), { headers: gatewayHeaders() });
    expect(download.headers.get('content-disposition')).toBe(
      `attachment; filename="cafe __.txt"; filename*=UTF-8''caf%C3%A9%20%E6%97%A5%E6%9C%AC.txt`,
    );
  });

  it('sanitises malicious file names, which never reach the object key', async () => {
    const p = newProjectId();
    const s = 9;
    const { body, contentType } = rawMultipart([
      {
        disposition: 'form-data; name="a"; filename="../../etc/passwd"',
        type: 'text/plain',
        data: 'root:x:0:0',
      },
      {
        disposition: 'form-data; name="b"; filename="C:\\\\x\\\\y.txt"',
        type: 'text/plain',
        data: 'windows',
      },
      {
        disposition: `form-data; name="c"; filename*=UTF-8''..%2F..%2Fevil%0D%0ASet-Cookie%3A%20x%3D1%22.txt`,
        type: 'text/html',
        data: '<script>',
      },
      { disposition: 'form-data; name="d"; filename=".."', type: 'application/octet-stream', data: '' },
    ]);
    const res = await upload(p, s, body, { 'content-type': contentType });
    expect(res.status).toBe(200);
    expect(res.json.items.map((i) => [i.fileName, i.sizeInBytes, i.contentType])).toEqual([
      ['passwd', 10, 'text/plain'],
      ['y.txt', 7, 'text/plain'],
      ['evilSet-Cookie: x=1".txt', 8, 'text/html'],
      ['file', 0, 'application/octet-stream'],
    ]);
    const keys = await listObjects(`${p}/`);
    expect(keys).toEqual(res.json.items.map((i) => `${p}/${s}/${i.token}`).sort());

    const evil = res.json.items[2]!;
    const download = await fetch(contentUrl(p, s, evil.id), { headers: gatewayHeaders() });
    expect(download.headers.get('content-disposition')).toBe(
      `attachment; filename="evilSet-Cookie: x=1\\".txt"; filename*=UTF-8''evilSet-Cookie%3A%20x%3D1%22.txt`,
    );
    expect(download.headers.get('set-cookie')).toBeNull();
    expect(download.headers.get('content-type')).toBe('text/html');
    expect(download.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await download.text()).toBe('<script>');
  });
});

describe('refused uploads leave nothing behind', () => {
  it('refuses a body that is not multipart/form-data with 400 invalid-body', async () => {
    const p = newProjectId();
    const res = await upload(p, 1, Buffer.from('{"fileName":"a.txt"}'), {
      'content-type': 'application/json',
    });
    expect(res.status).toBe(400);
    expect(res.json).toEqual({
      kind: 'InvalidArgument',
      problem: 'invalid-body',
      message: expect.stringContaining('multipart/form-data'),
    });
    expect(await listAttachments(p, 1)).toEqual([]);
  });

  it('refuses a multipart body without a file part with 400 invalid-body', async () => {
    const p = newProjectId();
    const form = new FormData();
    form.append('text', 'just a field');
    const res = await upload(p, 1, form);
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ kind: 'InvalidArgument', problem: 'invalid-body' });
  });

  it('refuses a malformed multipart body with 400 invalid-body', async () => {
    const p = newProjectId();
    const res = await upload(
      p,
      1,
      Buffer.from('--xyz\r\nContent-Disposition: form-data; name="f"; filename="a"\r\n\r\nunterminated'),
      {
        'content-type': 'multipart/form-data; boundary=xyz',
      },
    );
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ kind: 'InvalidArgument', problem: 'invalid-body' });
    expect(await listObjects(`${p}/`)).toEqual([]);
  });

  it('refuses a NUL character in a part’s name or file name with 400 invalid-field, keeping nothing', async () => {
    const p = newProjectId();
    const good = {
      disposition: 'form-data; name="ok"; filename="ok.txt"',
      type: 'text/plain',
      data: 'kept?',
    };
    const cases = [
      // Raw in the header (busboy alone would call it malformed), and encoded, where busboy decodes it.
      ['form-data; name="f\u0000"; filename="a.txt"', "A part's headers"],
      ['form-data; name="f"; filename="a\u0000.txt"', "A part's headers"],
      ['form-data; name="f"; filename*=UTF-8\'\'a%00.txt', "The file name of part 'f'"],
    ] as const;
    for (const [disposition, named] of cases) {
      const { body, contentType } = rawMultipart([good, { disposition, type: 'text/plain', data: 'x' }]);
      const res = await upload(p, 1, body, { 'content-type': contentType });
      expect(res.status).toBe(400);
      expect(res.json).toEqual({
        kind: 'InvalidArgument',
        problem: 'invalid-field',
        message: expect.stringMatching(new RegExp(`^${named}.*must not contain a NUL character\\.$`)),
      });
    }
    expect(await listAttachments(p, 1)).toEqual([]);
    expect(await listObjects(`${p}/`)).toEqual([]);
  });

  it('refuses a file name over 200 characters (its path not counted) with 400 naming the limit', async () => {
    const p = newProjectId();
    const part = (name: string) => ({
      disposition: `form-data; name="f"; filename*=UTF-8''${encodeURIComponent(name)}`,
      type: 'text/plain',
      data: 'x',
    });
    const long = rawMultipart([part('a.txt'), part(`${'é'.repeat(197)}.txt`)]);
    const res = await upload(p, 1, long.body, { 'content-type': long.contentType });
    expect(res.status).toBe(400);
    expect(res.json).toEqual({
      kind: 'InvalidArgument',
      problem: 'invalid-field',
      message: "The file name of part 'f' must be at most 200 characters (without its path).",
    });
    expect(await listObjects(`${p}/`)).toEqual([]);

    const fits = rawMultipart([part(`${'d'.repeat(300)}/${'é'.repeat(196)}.txt`)]);
    const ok = await upload(p, 1, fits.body, { 'content-type': fits.contentType });
    expect(ok.status).toBe(200);
    expect(ok.json.items.map((i) => i.fileName)).toEqual([`${'é'.repeat(196)}.txt`]);
  });

  it('answers 413 for a file over the limit, removing the files already stored by the request', async () => {
    const p = newProjectId();
    const s = 5;
    const form = new FormData();
    form.append(
      'file',
      new Blob(['first file, stored before the second one fails'], { type: 'text/plain' }),
      'ok.txt',
    );
    form.append('file', new Blob([randomBytes(MAX_FILE_BYTES + 1)]), 'too-big.bin');
    const res = await upload(p, s, form);
    expect(res.status).toBe(413);
    expect(res.json).toEqual({
      kind: 'PayloadTooLarge',
      problem: 'payload-too-large',
      message: expect.stringContaining(String(MAX_FILE_BYTES)),
    });

    expect(await listAttachments(p, s)).toEqual([]);
    const { rows } = await db.query('SELECT count(*)::int AS n FROM attachments WHERE project_id = $1', [p]);
    expect(rows[0].n).toBe(0);
    expect(await listObjects(`${p}/`)).toEqual([]);
    // The multipart upload of too-big.bin was aborted too: MinIO lists incomplete uploads only by exact key, which
    // this test cannot know, so that is checked against the blob store directly (minio-blob-store.int.test.ts).

    // The service is fine afterwards.
    const again = new FormData();
    again.append('file', new Blob(['ok']), 'ok.txt');
    expect((await upload(p, s, again)).status).toBe(200);
  });

  it('answers 413 for more parts than allowed instead of dropping files silently', async () => {
    const p = newProjectId();
    const form = new FormData();
    form.append('file', new Blob(['first']), 'first.txt');
    for (let i = 0; i < MAX_PARTS; i++) form.append(`field${i}`, 'x');
    form.append('file', new Blob(['last']), 'last.txt');
    const res = await upload(p, 1, form);
    expect(res.status).toBe(413);
    expect(res.json).toMatchObject({
      kind: 'PayloadTooLarge',
      message: expect.stringContaining('Too many parts'),
    });
    expect(await listObjects(`${p}/`)).toEqual([]);
    expect(await listAttachments(p, 1)).toEqual([]);
  });
});

describe('a client that disconnects mid-upload', () => {
  it('leaves no object and no row, and the service keeps serving', async () => {
    const p = newProjectId();
    const boundary = 'flowboard-disconnect';
    const req = http.request(attachmentsUrl(p, 1), {
      method: 'POST',
      headers: gatewayHeaders({ 'content-type': `multipart/form-data; boundary=${boundary}` }),
    });
    req.on('error', () => undefined); // the socket is destroyed on purpose
    req.write(`--${boundary}\r\nContent-Disposition: form-data; name="a"; filename="a.txt"\r\n\r\nfirst\r\n`);
    req.write(`--${boundary}\r\nContent-Disposition: form-data; name="b"; filename="b.bin"\r\n\r\n`);
    req.write(randomBytes(9 * MiB)); // past one 8 MiB part, so a multipart upload is under way
    // a.txt is stored by now; the disconnect must take it away again.
    await waitFor(
      async () => ((await listObjects(`${p}/`)).length === 1 ? true : undefined),
      5_000,
      'a.txt stored',
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    req.destroy();

    await waitFor(
      async () => ((await listObjects(`${p}/`)).length === 0 ? true : undefined),
      5_000,
      'cleanup',
    );
    expect(await listAttachments(p, 1)).toEqual([]);
    const form = new FormData();
    form.append('file', new Blob(['still here']), 'ok.txt');
    expect((await upload(p, 1, form)).status).toBe(200);
  });
});

describe('lookups and request checks', () => {
  it('GetAttachment is NOT_FOUND when absent or in another project or story', async () => {
    const p = newProjectId();
    const form = new FormData();
    form.append('file', new Blob(['x']), 'x.txt');
    const [item] = (await upload(p, 1, form)).json.items;
    for (const request of [
      { project_id: p, story_id: 1, attachment_id: item!.id + 1_000_000 },
      { project_id: p, story_id: 2, attachment_id: item!.id },
      { project_id: newProjectId(), story_id: 1, attachment_id: item!.id },
    ]) {
      expect((await grpcError(call('GetAttachment', request))).code).toBe(grpc.status.NOT_FOUND);
    }
    // Nor can its bytes be fetched through another story.
    const other = await fetch(contentUrl(p, 2, item!.id), { headers: gatewayHeaders() });
    expect(other.status).toBe(404);
    expect(await other.json()).toEqual({
      kind: 'NotFound',
      problem: 'not-found',
      message: 'Attachment not found',
    });
  });

  it('requires the caller header (401), known routes (404) and the right method (405)', async () => {
    const p = newProjectId();
    const noUser = await fetch(contentUrl(p, 1, 1), { headers: { 'x-request-id': 'r1' } });
    expect(noUser.status).toBe(401);
    expect(await noUser.json()).toMatchObject({ kind: 'Unauthenticated', problem: 'unauthorized' });
    expect(noUser.headers.get('x-request-id')).toBe('r1');

    const unknown = await fetch(`${base}/internal/nothing`, { headers: gatewayHeaders() });
    expect(unknown.status).toBe(404);

    const wrong = await fetch(attachmentsUrl(p, 1), { method: 'GET', headers: gatewayHeaders() });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('POST');
    expect(await wrong.json()).toMatchObject({ kind: 'MethodNotAllowed', problem: 'method-not-allowed' });
  });
});

describe('list filter, rename, delete, ranges', () => {
  async function uploadOne(p: number, s: number, data: Buffer, name = 'plan.bin') {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(data)], { type: 'application/octet-stream' }), name);
    const res = await upload(p, s, form);
    expect(res.status).toBe(200);
    return res.json.items[0]!;
  }

  it('ListAttachments accepts a blank where; any property is INVALID_ARGUMENT (invalid-filter)', async () => {
    const p = newProjectId();
    await uploadOne(p, 1, Buffer.from('x'));
    const ok = await call<files.ListAttachmentsResponse__Output>('ListAttachments', {
      project_id: p,
      story_id: 1,
      where: ' ',
    });
    expect(ok.attachments).toHaveLength(1);
    const err = await grpcError(call('ListAttachments', { project_id: p, story_id: 1, where: 'fileName:x' }));
    expect(err.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(err.details).toContain('fileName');
  });

  it('RenameAttachment sanitises the name, persists it, and serves it in Content-Disposition', async () => {
    const p = newProjectId();
    const a = await uploadOne(p, 2, Buffer.from('abc'));
    const renamed = await call<files.RenameAttachmentResponse__Output>('RenameAttachment', {
      project_id: p,
      story_id: 2,
      attachment_id: a.id,
      file_name: '../secret/\u202Erépertoire.txt',
    });
    expect(renamed.attachment).toMatchObject({ id: a.id, file_name: 'répertoire.txt', token: a.token });
    expect((await listAttachments(p, 2))[0]!.file_name).toBe('répertoire.txt');
    const res = await fetch(contentUrl(p, 2, a.id), { headers: gatewayHeaders() });
    expect(res.headers.get('content-disposition')).toContain("filename*=UTF-8''r%C3%A9pertoire.txt");
    await res.arrayBuffer();
    const wrongStory = await grpcError(
      call('RenameAttachment', { project_id: p, story_id: 3, attachment_id: a.id, file_name: 'x' }),
    );
    expect(wrongStory.code).toBe(grpc.status.NOT_FOUND);
    const blank = await grpcError(
      call('RenameAttachment', { project_id: p, story_id: 2, attachment_id: a.id, file_name: ' ' }),
    );
    expect(blank.code).toBe(grpc.status.INVALID_ARGUMENT);
    for (const fileName of ['a\u0000b.txt', `${'x'.repeat(197)}.txt`]) {
      const refused = await grpcError(
        call('RenameAttachment', { project_id: p, story_id: 2, attachment_id: a.id, file_name: fileName }),
      );
      expect(refused.code).toBe(grpc.status.INVALID_ARGUMENT);
    }
    const kept = await call<files.RenameAttachmentResponse__Output>('RenameAttachment', {
      project_id: p,
      story_id: 2,
      attachment_id: a.id,
      file_name: `${'x'.repeat(196)}.txt`,
    });
    expect(kept.attachment?.file_name).toHaveLength(200);
  });

  it('DeleteAttachment removes the row and the object; a second delete is NOT_FOUND', async () => {
    const p = newProjectId();
    const a = await uploadOne(p, 4, randomBytes(1000));
    const b = await uploadOne(p, 4, randomBytes(10));
    expect(await listObjects(`${p}/`)).toHaveLength(2);
    await call('DeleteAttachment', { project_id: p, story_id: 4, attachment_id: a.id });
    expect((await listAttachments(p, 4)).map((x) => x.id)).toEqual([b.id]);
    expect(await listObjects(`${p}/`)).toEqual([`${p}/4/${b.token}`]);
    const again = await grpcError(
      call('DeleteAttachment', { project_id: p, story_id: 4, attachment_id: a.id }),
    );
    expect(again.code).toBe(grpc.status.NOT_FOUND);
    const other = await grpcError(
      call('DeleteAttachment', { project_id: p, story_id: 5, attachment_id: b.id }),
    );
    expect(other.code).toBe(grpc.status.NOT_FOUND);
    expect(await listObjects(`${p}/`)).toHaveLength(1);
  });

  it('serves single byte ranges byte-exact (206), 416 when unsatisfiable, 200 for several ranges', async () => {
    const p = newProjectId();
    const data = randomBytes(9 * MiB + 5); // a multipart-uploaded object: ranges cross the 8 MiB part boundary
    const a = await uploadOne(p, 6, data);
    const get = (range?: string) =>
      fetch(contentUrl(p, 6, a.id), { headers: gatewayHeaders(range ? { range } : {}) });
    const cases: Array<[string, number, number]> = [
      ['bytes=0-0', 0, 0],
      [`bytes=${8 * MiB - 10}-${8 * MiB + 9}`, 8 * MiB - 10, 8 * MiB + 9],
      [`bytes=${9 * MiB}-`, 9 * MiB, data.length - 1],
      ['bytes=-7', data.length - 7, data.length - 1],
      [`bytes=100-${data.length + 1000}`, 100, data.length - 1],
    ];
    for (const [range, start, end] of cases) {
      const res = await get(range);
      expect(res.status).toBe(206);
      expect(res.headers.get('content-range')).toBe(`bytes ${start}-${end}/${data.length}`);
      expect(res.headers.get('content-length')).toBe(String(end - start + 1));
      expect(res.headers.get('content-type')).toBe('application/octet-stream');
      const body = Buffer.from(await res.arrayBuffer());
      expect(sha256(body)).toBe(sha256(data.subarray(start, end + 1)));
    }
    const unsatisfiable = await get(`bytes=${data.length}-`);
    expect(unsatisfiable.status).toBe(416);
    expect(unsatisfiable.headers.get('content-range')).toBe(`bytes */${data.length}`);
    expect((await unsatisfiable.arrayBuffer()).byteLength).toBe(0);
    const several = await get('bytes=0-1,5-6');
    expect(several.status).toBe(200);
    expect(several.headers.get('accept-ranges')).toBe('bytes');
    expect(sha256(Buffer.from(await several.arrayBuffer()))).toBe(sha256(data));
  });
});
