import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { PassThrough, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { BoundaryBlindDigest, multipartBoundary, StreamedBodyDigest } from './multipart-digest';

interface Part {
  name: string;
  fileName: string;
  type?: string;
  data: Buffer;
}

function multipart(boundary: string, parts: Part[]): Buffer {
  const pieces: Buffer[] = [Buffer.from('preamble\r\n')];
  for (const part of parts) {
    const type = part.type === undefined ? '' : `Content-Type: ${part.type}\r\n`;
    pieces.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"; filename="${part.fileName}"\r\n` +
          `${type}\r\n`,
      ),
      part.data,
      Buffer.from('\r\n'),
    );
  }
  pieces.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(pieces);
}

const digestOf = (boundary: string | undefined, body: Buffer, chunkSize = body.length) => {
  const digest = new BoundaryBlindDigest(boundary);
  for (let at = 0; at < body.length; at += chunkSize) digest.update(body.subarray(at, at + chunkSize));
  return digest.digest();
};

const plans: Part[] = [
  { name: 'attachment', fileName: 'plans.txt', type: 'text/plain', data: Buffer.from('Sudden Valley') },
  { name: 'attachment', fileName: 'model.bin', data: Buffer.from([0, 1, 2, 45, 45, 3, 13, 10]) },
];

describe('BoundaryBlindDigest', () => {
  it('gives the same upload sent with two boundaries the same digest', () => {
    const first = digestOf('----formdata-undici-0123', multipart('----formdata-undici-0123', plans));
    const retry = digestOf('XyZ', multipart('XyZ', plans));
    expect(retry).toBe(first);
  });

  it('tells apart what a retry must not differ in: content, name, file name, declared type, order', () => {
    const digests = [
      plans,
      [{ ...plans[0]!, data: Buffer.from('Sudden Valley!') }, plans[1]!],
      [{ ...plans[0]!, name: 'file' }, plans[1]!],
      [{ ...plans[0]!, fileName: 'plans2.txt' }, plans[1]!],
      [plans[0]!, { ...plans[1]!, type: 'text/plain' }], // declared vs. no Content-Type
      [plans[1]!, plans[0]!],
      [plans[0]!],
    ].map((parts) => digestOf('b', multipart('b', parts)));
    expect(new Set(digests).size).toBe(digests.length);
  });

  it('does not depend on how the body is cut into chunks, a delimiter split anywhere included', () => {
    const boundary = 'a-rather-long-boundary-0123456789';
    const body = multipart(boundary, plans);
    const whole = digestOf(boundary, body);
    for (let size = 1; size <= boundary.length + 4; size++)
      expect(digestOf(boundary, body, size)).toBe(whole);
  });

  it('cannot be fooled by a part whose bytes move a delimiter: pieces are hashed apart', () => {
    // Joining the pieces' bytes would make these equal; hashing each piece keeps them apart.
    expect(digestOf('b', Buffer.from('x--by'))).not.toBe(digestOf('b', Buffer.from('xy--b')));
    expect(digestOf('b', Buffer.from('x--by'))).not.toBe(digestOf('b', Buffer.from('xy')));
  });

  it('without a boundary, is a digest of every byte as it is', () => {
    const body = Buffer.from('--b not multipart');
    const plain = createHash('sha256').update(createHash('sha256').update(body).digest()).digest('hex');
    expect(digestOf(undefined, body, 3)).toBe(plain);
    expect(digestOf(undefined, body)).not.toBe(digestOf('b', body));
  });
});

describe('multipartBoundary', () => {
  it.each([
    ['multipart/form-data; boundary=abc', 'abc'],
    ['Multipart/Form-Data;charset=utf-8; BOUNDARY="a b;c"', 'a b;c'],
    ['multipart/form-data', undefined],
    ['application/json; boundary=abc', undefined],
    [undefined, undefined],
  ])('%j → %j', (contentType, boundary) => {
    expect(multipartBoundary(contentType)).toBe(boundary);
  });
});

describe('StreamedBodyDigest', () => {
  const contentType = 'multipart/form-data; boundary=b';
  const body = multipart('b', plans);
  const asRequest = (stream: PassThrough) => stream as unknown as IncomingMessage;
  const sink = () =>
    new Writable({
      write: (_chunk, _encoding, done) => done(),
    });

  it('sees every chunk its reader pipes, watching from where the reader starts', async () => {
    const request = new PassThrough();
    request.write(body.subarray(0, 10)); // already buffered when reading starts
    const watching = new StreamedBodyDigest(contentType);
    const piped = pipeline(request, sink());
    watching.watch(asRequest(request)); // the proxy's proxyReq: the pipe is set, no chunk has moved yet
    request.end(body.subarray(10));
    await piped;
    expect(await watching.digest()).toBe(digestOf('b', body));
  });

  it('reads a body nobody else reads (a retry answered from the store)', async () => {
    const request = new PassThrough();
    request.end(body);
    expect(await new StreamedBodyDigest(contentType).read(asRequest(request))).toBe(digestOf('b', body));
  });

  it('has no digest for a body that never all arrived, or that nothing read', async () => {
    const cut = new PassThrough();
    const watching = new StreamedBodyDigest(contentType);
    watching.watch(asRequest(cut));
    cut.resume();
    cut.write(body.subarray(0, 10));
    cut.destroy();
    expect(await watching.digest()).toBeUndefined();
    expect(await new StreamedBodyDigest(contentType).digest()).toBeUndefined();
  });
});
