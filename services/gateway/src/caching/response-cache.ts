import type { CacheEpoch } from '../authz/cache-epoch';

/** A response body as the dispatcher sends it. */
export interface RenderedBody {
  contentType: string;
  body: string;
}

/** How a lookup went, for the hit-rate metric. */
export type CacheOutcome = 'hit' | 'shared' | 'miss' | 'bypass';

interface Entry extends RenderedBody {
  expiresAt: number;
  size: number;
}

/** The cached responses of one board, all under the same version. */
interface Bucket {
  version: bigint;
  entries: Map<string, Entry>;
}

export interface ResponseCacheLimits {
  /** Budget for all bodies, in bytes (UTF-16: two per character); 0 turns the cache off. */
  maxBytes: number;
  /** How long an entry lives even if its board's version never moves (bounds what a lost advance can cost). */
  ttlMs: number;
}

/**
 * Rendered read responses of project boards, in this replica's memory, each valid only under the board version
 * and the cache epoch it was rendered under: a change to the board (any version) or to users and access (the
 * epoch) makes it unreachable at once. Requests for the same response at the same time render it once and
 * share it. When the budget is exceeded, the boards stored into longest ago go first, whole.
 */
export class ResponseCache {
  private readonly boards = new Map<number, Bucket>();
  private readonly inFlight = new Map<string, Promise<RenderedBody>>();
  private bytes = 0;

  constructor(
    private readonly epoch: CacheEpoch,
    private readonly limits: ResponseCacheLimits,
    private readonly observe: (outcome: CacheOutcome) => void = () => undefined,
  ) {
    epoch.register(this);
  }

  /**
   * The response `key` of `projectId`'s board at `version`: from memory, from a render already under way, or
   * rendered now and kept. Without a version or a known epoch, it is only rendered.
   */
  async through(
    projectId: number,
    version: string | undefined,
    key: string,
    render: () => Promise<RenderedBody>,
  ): Promise<RenderedBody> {
    const ticket = this.epoch.known;
    if (version === undefined || ticket === undefined || this.limits.maxBytes === 0) {
      this.observe('bypass');
      return render();
    }
    const bucket = this.boards.get(projectId);
    const entry = bucket?.version === BigInt(version) ? bucket.entries.get(key) : undefined;
    if (entry && entry.expiresAt > Date.now()) {
      this.observe('hit');
      return entry;
    }
    const flightKey = `${projectId} ${version} ${key}`;
    const flight = this.inFlight.get(flightKey);
    if (flight) {
      this.observe('shared');
      return flight;
    }
    this.observe('miss');
    const rendering = render();
    this.inFlight.set(flightKey, rendering);
    try {
      const rendered = await rendering;
      this.store(projectId, BigInt(version), key, rendered, ticket);
      return rendered;
    } finally {
      this.inFlight.delete(flightKey);
    }
  }

  /** Everything goes: the epoch moved (a user renamed, access revoked) or can't be read. */
  clear(): void {
    this.boards.clear();
    this.bytes = 0;
  }

  /** Bytes held, for tests and the gauge. */
  get size(): number {
    return this.bytes;
  }

  private store(
    projectId: number,
    version: bigint,
    key: string,
    rendered: RenderedBody,
    ticket: string,
  ): void {
    // The epoch moved while rendering: the body may show what was just revoked or renamed.
    if (ticket !== this.epoch.known) return;
    const size = rendered.body.length * 2;
    if (size > this.limits.maxBytes) return;
    let bucket = this.boards.get(projectId);
    // A slow render of an older version must not displace the newer one.
    if (bucket && bucket.version > version) return;
    if (bucket && bucket.version < version) bucket = this.drop(projectId);
    if (!bucket) bucket = { version, entries: new Map() };
    this.boards.delete(projectId); // re-inserted last: the most recently stored board
    this.boards.set(projectId, bucket);
    const previous = bucket.entries.get(key);
    if (previous) this.bytes -= previous.size;
    bucket.entries.set(key, { ...rendered, size, expiresAt: Date.now() + this.limits.ttlMs });
    this.bytes += size;
    while (this.bytes > this.limits.maxBytes) {
      const oldest = this.boards.keys().next().value;
      if (oldest === undefined) break;
      this.drop(oldest);
    }
  }

  private drop(projectId: number): undefined {
    const bucket = this.boards.get(projectId);
    if (bucket) for (const entry of bucket.entries.values()) this.bytes -= entry.size;
    this.boards.delete(projectId);
    return undefined;
  }
}
