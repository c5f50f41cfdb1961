import { createHash, type Hash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/**
 * A SHA-256 digest of a multipart body that is blind to its boundary: a client picks a new boundary for every
 * request, so a retry of the same upload differs from the first only there. Every other byte counts (part headers,
 * file names, types, contents, preamble and epilogue), so two uploads get the same digest exactly when their bytes
 * match with the boundary taken out.
 *
 * Why not a parser's view (busboy's names, types and bytes): it would lose details of the part headers (busboy
 * reports a missing Content-Type as `text/plain`, which files treats differently) and need a fallback for a body
 * that does not parse. The body is split at each `--boundary` instead; each piece between two is hashed on its own,
 * and the digest is the hash of those hashes, so no piece's bytes can pass for a delimiter. Streams: only the last
 * `--boundary` length bytes of a chunk are held back, in case a delimiter spans two chunks.
 */
export class BoundaryBlindDigest {
  private readonly delimiter: Buffer | undefined;
  private readonly pieces = createHash('sha256');
  private piece: Hash = createHash('sha256');
  private held = Buffer.alloc(0);

  /** `boundary` undefined (a body that is not multipart): the digest of the bytes as they are. */
  constructor(boundary: string | undefined) {
    this.delimiter = boundary === undefined ? undefined : Buffer.from(`--${boundary}`, 'latin1');
  }

  update(chunk: Buffer): void {
    if (!this.delimiter) {
      this.piece.update(chunk);
      return;
    }
    const data = this.held.length === 0 ? chunk : Buffer.concat([this.held, chunk]);
    let start = 0;
    for (let at = data.indexOf(this.delimiter); at !== -1; at = data.indexOf(this.delimiter, start)) {
      this.piece.update(data.subarray(start, at));
      this.endPiece();
      start = at + this.delimiter.length;
    }
    // A delimiter may begin in the last bytes: keep fewer than its length for the next chunk.
    const keep = Math.min(data.length - start, this.delimiter.length - 1);
    this.piece.update(data.subarray(start, data.length - keep));
    this.held = Buffer.from(data.subarray(data.length - keep));
  }

  digest(): string {
    this.piece.update(this.held);
    this.endPiece();
    return this.pieces.digest('hex');
  }

  private endPiece(): void {
    this.pieces.update(this.piece.digest());
    this.piece = createHash('sha256');
  }
}

/** The boundary parameter of a multipart Content-Type (quoted or not), undefined when there is none. */
export function multipartBoundary(contentType: string | undefined): string | undefined {
  const match = /^multipart\/[^;\s]+\s*;(?:.*;)?\s*boundary=(?:"([^"]+)"|([^\s;]+))/i.exec(contentType ?? '');
  return match?.[1] ?? match?.[2];
}

/**
 * Watches a request body go by whoever reads it (the files proxy) and settles with its boundary-blind digest when
 * it has all arrived, or `undefined` when it never does (the caller hung up, or nothing read it).
 */
export class StreamedBodyDigest {
  private watched = false;
  private resolve!: (digest: string | undefined) => void;
  private readonly settled = new Promise<string | undefined>((resolve) => (this.resolve = resolve));

  constructor(private readonly contentType: string | undefined) {}

  /**
   * Starts watching; call it when the reader has started reading but no chunk has been read yet (the files
   * proxy's `proxyReq`), so both see every chunk. A 'data' listener sets the body flowing, so attaching one
   * before the reader would lose it the first chunks. Watching twice is once.
   */
  watch(body: IncomingMessage): void {
    if (this.watched) return;
    this.watched = true;
    const digest = new BoundaryBlindDigest(multipartBoundary(this.contentType));
    body.on('data', (chunk: Buffer) => digest.update(chunk));
    body.once('end', () => this.resolve(digest.digest()));
    body.once('close', () => this.resolve(undefined)); // after `end`, a no-op
    body.once('error', () => this.resolve(undefined));
  }

  /** Reads the whole body itself (nobody else will): the digest of a retry that is answered from the store. */
  read(body: IncomingMessage): Promise<string | undefined> {
    this.watch(body);
    body.resume();
    return this.settled;
  }

  /** The digest once the body has arrived; `undefined` at once when nothing ever read it. */
  digest(): Promise<string | undefined> {
    return this.watched ? this.settled : Promise.resolve(undefined);
  }
}
