import { Transform, type TransformCallback } from 'node:stream';

/** A part whose header block is longer than this is not inspected (busboy refuses far smaller ones anyway). */
const MAX_HEADER_BYTES = 64 * 1024;
const HEADER_END = Buffer.from('\r\n\r\n');
const FILE_DISPOSITION = /\r\ncontent-disposition[ \t]*:[ \t]*form-data[^\r]*;[ \t]*filename\*?[ \t]*=/i;
const CONTENT_TYPE = /\r\ncontent-type[ \t]*:/i;

/** The boundary of a multipart Content-Type header, quoted or not; undefined when there is none. */
export function multipartBoundary(contentType: string | undefined): string | undefined {
  const match = /;\s*boundary=(?:"([^"]+)"|([^\s;]+))/i.exec(contentType ?? '');
  return match?.[1] ?? match?.[2];
}

/**
 * Passes a multipart body through unchanged while noting, for each FILE part in order, whether its header block
 * names a Content-Type. busboy reports RFC 7578's default `text/plain` for a part without one, indistinguishable
 * from a declared `text/plain`; docs/compat.md §5.6 stores such files as `application/octet-stream` instead,
 * so the upload needs to know which parts had no type. Only header blocks are kept (bounded); file bytes are
 * not.
 */
export class FilePartTypeSniffer extends Transform {
  /** One entry per file part seen so far: did it declare a Content-Type? */
  readonly declaredContentType: boolean[] = [];
  /** A part's header block held a NUL byte (busboy calls such a header malformed; the NUL rule names it). */
  nulInHeaders = false;
  private readonly delimiter: Buffer;
  // The body may open with the first boundary itself, which then has no CRLF before it.
  private pending: Buffer = Buffer.from('\r\n');
  private state: 'boundary' | 'headers' | 'done' = 'boundary';

  constructor(boundary: string) {
    super();
    this.delimiter = Buffer.from(`\r\n--${boundary}`, 'latin1');
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    if (this.state !== 'done') this.scan(chunk);
    callback(null, chunk);
  }

  private scan(chunk: Buffer): void {
    const buf = Buffer.concat([this.pending, chunk]);
    let pos = 0;
    for (;;) {
      if (this.state === 'boundary') {
        const at = buf.indexOf(this.delimiter, pos);
        if (at === -1) {
          // Keep just enough to find a delimiter split across chunks.
          this.pending = buf.subarray(Math.max(pos, buf.length - this.delimiter.length + 1));
          return;
        }
        pos = at + this.delimiter.length;
        this.state = 'headers';
      }
      if (buf.length - pos < 2) break; // need two bytes to tell the close delimiter (`--`) from a part
      if (buf[pos] === 0x2d && buf[pos + 1] === 0x2d) {
        this.state = 'done';
        this.pending = Buffer.alloc(0);
        return;
      }
      const end = buf.indexOf(HEADER_END, pos);
      // Looked for as the block arrives: busboy fails on the NUL before the block is complete.
      const nul = buf.indexOf(0, pos);
      if (nul !== -1 && (end === -1 || nul < end)) this.nulInHeaders = true;
      if (end === -1) {
        if (buf.length - pos > MAX_HEADER_BYTES) this.state = 'done';
        break;
      }
      const block = buf.toString('latin1', pos, end);
      if (FILE_DISPOSITION.test(block)) this.declaredContentType.push(CONTENT_TYPE.test(block));
      pos = end + HEADER_END.length;
      this.state = 'boundary';
    }
    this.pending = buf.subarray(pos);
  }
}
