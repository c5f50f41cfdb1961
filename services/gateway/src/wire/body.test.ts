import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { deflateSync, gzipSync } from 'node:zlib';
import { readBody } from './body';

function request(
  body: string | Buffer,
  headers: Record<string, string> = {},
  method = 'POST',
): IncomingMessage {
  const stream = Readable.from([Buffer.from(body)]) as unknown as IncomingMessage;
  Object.assign(stream, { headers, method });
  return stream;
}

const LIMIT = 64;

describe('readBody (docs/compat.md §1.2, §1.4)', () => {
  it('reads JSON by Content-Type', async () => {
    const body = await readBody(request('{"text":"a"}', { 'content-type': 'application/json' }), LIMIT);
    expect(body.object()).toEqual({ text: 'a' });
  });

  it('reads XML by Content-Type', async () => {
    const body = await readBody(
      request('<story><text>a</text></story>', { 'content-type': 'text/xml' }),
      LIMIT,
    );
    expect(body.format).toBe('xml');
    expect(body.object()).toEqual({ text: 'a' });
  });

  it('no or unrelated type → JSON, unless the body starts with <', async () => {
    expect((await readBody(request('{"a":1}', { 'content-type': 'text/plain' }), LIMIT)).object()).toEqual({
      a: 1,
    });
    expect((await readBody(request('  <s><a>1</a></s>'), LIMIT)).object()).toEqual({ a: '1' });
  });

  it('empty body is an empty object', async () => {
    expect((await readBody(request('', { 'content-type': 'application/json' }), LIMIT)).object()).toEqual({});
  });

  it('malformed JSON and XML are 400 invalid-body', async () => {
    await expect(
      readBody(request('{"a":', { 'content-type': 'application/json' }), LIMIT),
    ).rejects.toMatchObject({
      kind: 'InvalidArgument',
      problem: 'invalid-body',
    });
    await expect(
      readBody(request('<!DOCTYPE x><x/>', { 'content-type': 'application/xml' }), LIMIT),
    ).rejects.toMatchObject({
      problem: 'invalid-body',
    });
  });

  it('a JSON array where an object is expected is 400', async () => {
    const body = await readBody(request('[1]'), LIMIT);
    expect(() => body.object()).toThrow(/object/);
    expect(body.array()).toEqual([1]);
  });

  it('multipart outside uploads is 400', async () => {
    await expect(
      readBody(request('x', { 'content-type': 'multipart/form-data; boundary=b' }), LIMIT),
    ).rejects.toMatchObject({
      problem: 'invalid-body',
    });
  });

  it('over the limit is 413, by Content-Length or by counting', async () => {
    await expect(readBody(request('{}', { 'content-length': '65' }), LIMIT)).rejects.toMatchObject({
      kind: 'PayloadTooLarge',
    });
    await expect(readBody(request(`{"a":"${'x'.repeat(100)}"}`), LIMIT)).rejects.toMatchObject({
      kind: 'PayloadTooLarge',
    });
  });

  it('ignores bodies on GET and DELETE', async () => {
    expect((await readBody(request('not json', {}, 'GET'), LIMIT)).object()).toEqual({});
    expect((await readBody(request('not json', {}, 'DELETE'), LIMIT)).object()).toEqual({});
  });

  describe('Content-Encoding', () => {
    it('decodes gzip and deflate bodies', async () => {
      const gz = request(gzipSync('{"text":"zipped"}'), { 'content-encoding': 'gzip' });
      expect((await readBody(gz, LIMIT)).object()).toEqual({ text: 'zipped' });
      const xml = request(deflateSync('<story><text>d</text></story>'), { 'content-encoding': 'Deflate' });
      expect((await readBody(xml, LIMIT)).object()).toEqual({ text: 'd' });
      const plain = request('{"a":"b"}', { 'content-encoding': 'identity' });
      expect((await readBody(plain, LIMIT)).object()).toEqual({ a: 'b' });
    });

    it('applies the limit to the decoded bytes (a small gzip of a large body is 413)', async () => {
      const bomb = gzipSync(JSON.stringify({ text: 'a'.repeat(10_000) }));
      expect(bomb.length).toBeLessThan(LIMIT);
      await expect(readBody(request(bomb, { 'content-encoding': 'gzip' }), LIMIT)).rejects.toMatchObject({
        kind: 'PayloadTooLarge',
      });
    });

    it('refuses a body that is not what its coding says (400) and codings it cannot decode (415)', async () => {
      await expect(readBody(request('{"a":1}', { 'content-encoding': 'gzip' }), LIMIT)).rejects.toMatchObject(
        {
          kind: 'InvalidArgument',
          problem: 'invalid-body',
        },
      );
      for (const coding of ['br', 'compress', 'gzip, gzip'])
        await expect(
          readBody(request('{"a":1}', { 'content-encoding': coding }), LIMIT),
        ).rejects.toMatchObject({ kind: 'UnsupportedMediaType', problem: 'unsupported-media-type' });
    });
  });

  it('refuses a NUL in any string of a JSON or XML body, naming the field', async () => {
    await expect(readBody(request('{"tasks":[{"text":"a\\u0000"}]}'), LIMIT)).rejects.toThrow(
      "Field 'tasks[0].text' must not contain a NUL character.",
    );
    await expect(readBody(request('<story><text>a&#0;b</text></story>'), LIMIT)).rejects.toThrow(
      "Field 'text' must not contain a NUL character.",
    );
  });
});
