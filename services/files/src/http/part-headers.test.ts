import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { FilePartTypeSniffer, multipartBoundary } from './part-headers';

const B = 'XyZ-boundary';
const body = [
  'preamble\r\n',
  `--${B}\r\nContent-Disposition: form-data; name="note"\r\n\r\njust a field\r\n`,
  `--${B}\r\nContent-Disposition: form-data; name="file"; filename="a.bin"\r\n\r\n\x01\x02--${B.slice(0, 4)}\r\n`,
  `--${B}\r\ncontent-disposition: form-data; name="file"; filename="b.txt"\r\nContent-Type: text/plain\r\n\r\nhello\r\n`,
  `--${B}  \r\nContent-Type: image/png\r\nContent-Disposition: form-data; name="x"; filename*=UTF-8''c%20d.png\r\n\r\nPNG\r\n`,
  `--${B}--\r\nepilogue with --${B}\r\nContent-Disposition: form-data; filename="ghost"\r\n\r\n`,
].join('');

async function sniff(chunks: Buffer[]): Promise<{ seen: boolean[]; out: Buffer }> {
  const sniffer = new FilePartTypeSniffer(B);
  const out = await buffer(Readable.from(chunks).pipe(sniffer));
  return { seen: sniffer.declaredContentType, out };
}

describe('FilePartTypeSniffer', () => {
  const whole = Buffer.from(body, 'latin1');

  it('notes, per file part, whether it declared a Content-Type, and passes the bytes through unchanged', async () => {
    const { seen, out } = await sniff([whole]);
    expect(seen).toEqual([false, true, true]); // a.bin (none), b.txt, c d.png; fields and the epilogue skipped
    expect(out.equals(whole)).toBe(true);
  });

  it('gives the same answer wherever the body is split, down to single bytes', async () => {
    for (let cut = 1; cut < whole.length; cut++) {
      const { seen } = await sniff([whole.subarray(0, cut), whole.subarray(cut)]);
      expect([cut, seen]).toEqual([cut, [false, true, true]]);
    }
    const bytes = [...whole].map((b) => Buffer.from([b]));
    expect((await sniff(bytes)).seen).toEqual([false, true, true]);
  });

  it('handles a body that opens with the boundary, without a preamble', async () => {
    const bare = Buffer.from(
      `--${B}\r\nContent-Disposition: form-data; name="f"; filename="x"\r\n\r\n1\r\n--${B}--`,
    );
    expect((await sniff([bare])).seen).toEqual([false]);
  });

  it('reads the boundary from the Content-Type header, quoted or not', () => {
    expect(multipartBoundary('multipart/form-data; boundary=abc')).toBe('abc');
    expect(multipartBoundary('multipart/form-data; charset=utf-8; BOUNDARY="a b;c"')).toBe('a b;c');
    expect(multipartBoundary('multipart/form-data')).toBeUndefined();
  });
});
