import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import busboy from 'busboy';
import { DomainError, isDomainError } from '@flowboard/service-kit';
import type { IncomingFile } from '../application/ports';
import { FilePartTypeSniffer, multipartBoundary } from './part-headers';

export interface MultipartOptions {
  /** Largest accepted file; a bigger part fails the request with PayloadTooLarge (413). */
  maxFileBytes: number;
}

/** Files and fields per request; more is refused (413) rather than silently dropped. */
export const MAX_PARTS = 1000;

const invalidBody = (message: string, cause?: unknown) =>
  new DomainError('InvalidArgument', message, { problem: 'invalid-body', cause });

const NUL = '\u0000';
/** The rule every string of a request follows (docs/compat.md §1.4), for a part's headers: 400 `invalid-field`. */
const nulInPart = () =>
  new DomainError(
    'InvalidArgument',
    "A part's headers (its name, file name or type) must not contain a NUL character.",
    { problem: 'invalid-field' },
  );

export const isMultipartFormData = (contentType: string | undefined): boolean =>
  /^multipart\/form-data\s*(;|$)/i.test(contentType ?? '');

/**
 * The file parts of a multipart/form-data request, one at a time, as busboy parses the request stream. Every part
 * with a filename counts as a file, under any field name; other fields are skipped. Each part's content must be
 * consumed before the next part arrives (busboy pauses the request meanwhile), so nothing is buffered here.
 *
 * Failures surface as DomainErrors: a body that is not multipart/form-data or is malformed → InvalidArgument
 * (`invalid-body`); a NUL character in a part's headers → InvalidArgument (`invalid-field`; a file name's NUL
 * written as `filename*=…%00` is the upload's to refuse); a file over the limit → PayloadTooLarge, as soon as the
 * limit is crossed. When the consumer
 * stops early (an error anywhere), the parser is detached and the rest of the body is read and discarded, so the
 * error response can go out at once on a connection that stays usable.
 */
export async function* readMultipartFiles(
  req: IncomingMessage,
  options: MultipartOptions,
): AsyncGenerator<IncomingFile> {
  if (!isMultipartFormData(req.headers['content-type'])) {
    throw invalidBody('The body must be multipart/form-data with one or more files.');
  }
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: req.headers,
      preservePath: true, // the domain strips paths itself (both separators), see sanitizeFileName
      defParamCharset: 'utf8', // browsers send raw UTF-8 file names
      // busboy reports the limit when a part *reaches* fileSize, so allow one byte more: a file of exactly
      // maxFileBytes is accepted, one byte over is refused.
      // Past `parts`, busboy silently ignores the rest, which would drop files: that is refused below instead.
      limits: { fileSize: options.maxFileBytes + 1, fieldSize: 64 * 1024, parts: MAX_PARTS },
    });
  } catch (err) {
    throw invalidBody('Malformed multipart/form-data header.', err);
  }

  // busboy says `text/plain` for a file part without a Content-Type; the sniffer tells those apart.
  const boundary = multipartBoundary(req.headers['content-type']);
  const sniffer = boundary === undefined ? undefined : new FilePartTypeSniffer(boundary);
  let fileIndex = 0;

  const queue: IncomingFile[] = [];
  let failure: unknown;
  let finished = false;
  let wake: (() => void) | undefined;
  const notify = () => {
    const resolve = wake;
    wake = undefined;
    resolve?.();
  };
  const fail = (error: unknown) => {
    failure ??= error;
    notify();
  };

  parser.on('file', (field, stream, info) => {
    // A part the consumer never reads (the upload was refused first, e.g. over quota) still gets destroyed with
    // an error when the parser goes; reading parts surfaces their errors through iteration instead.
    stream.on('error', () => undefined);
    stream.on('limit', () =>
      stream.destroy(
        new DomainError(
          'PayloadTooLarge',
          `A file is larger than the limit of ${options.maxFileBytes} bytes.`,
        ),
      ),
    );
    const declared = sniffer?.declaredContentType[fileIndex++] ?? true;
    // No Content-Type of its own: left unset, so the upload stores application/octet-stream
    // (docs/compat.md §5.6).
    const contentType = declared ? info.mimeType : undefined;
    if (field?.includes(NUL)) {
      stream.resume();
      fail(nulInPart());
      return;
    }
    queue.push({ partName: field, fileName: info.filename, contentType, content: guarded(stream) });
    notify();
  });
  // Form fields are skipped, but their names follow the NUL rule too.
  parser.on('field', (field) => {
    if (field?.includes(NUL)) fail(nulInPart());
  });
  parser.on('partsLimit', () =>
    fail(
      new DomainError(
        'PayloadTooLarge',
        `Too many parts: at most ${MAX_PARTS} files and fields per request.`,
      ),
    ),
  );
  parser.on('error', (err) =>
    fail(sniffer?.nulInHeaders ? nulInPart() : invalidBody('Malformed multipart/form-data body.', err)),
  );
  parser.on('close', () => {
    finished = true;
    notify();
  });
  // A client that goes away mid-body: fail the part in progress, which aborts its upload.
  const onClose = () => {
    if (req.complete) return;
    const error = invalidBody('The request body ended early.');
    fail(error);
    parser.destroy(error);
  };
  req.on('close', onClose);
  const source = sniffer ? req.pipe(sniffer) : req;
  source.pipe(parser);

  try {
    for (;;) {
      if (failure !== undefined) throw failure;
      const next = queue.shift();
      if (next) {
        yield next;
        continue;
      }
      if (finished) return;
      await new Promise<void>((resolve) => (wake = resolve));
    }
  } finally {
    req.off('close', onClose);
    if (!finished || failure !== undefined) {
      source.unpipe(parser);
      if (sniffer) req.unpipe(sniffer);
      parser.destroy();
    }
    if (!req.complete) req.resume();
  }
}

/** A part's bytes; parser errors become invalid-body, our own DomainErrors (the size limit) pass through. */
async function* guarded(stream: Readable): AsyncGenerator<Uint8Array> {
  try {
    for await (const chunk of stream) yield chunk as Buffer;
  } catch (err) {
    throw isDomainError(err) ? err : invalidBody('Malformed multipart/form-data body.', err);
  }
}
