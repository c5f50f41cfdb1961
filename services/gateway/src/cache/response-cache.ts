import type { RenderedBody } from '../wire/respond';
import type { CacheEpoch } from './epoch';

/** A response body as the dispatcher sends it. */
/** How a lookup went, for the hit-rate metric. */
export type CacheOutcome = 'hit' | 'shared' | 'miss' | 'bypass';

interface Entry {
  /** The same object for every request it answers (what is derived from it, e.g. a compressed copy, can be kept). */
  rendered: RenderedBody;
  /** The board version it was rendered under: it answers only requests that read the same one. */
  version: string;
  expiresAt: number;
  size: number;
}

export interface ResponseCacheLimits {
  /** Budget for all bodies and their compressed copies, in bytes (UTF-16: two per character); 0 turns it off. */
  maxBytes: number;
  /** How long an entry lives even if its board's version never moves (bounds what a lost advance can cost). */
  ttlMs: number;
}

const entryKeyOf = (projectId: number, key: string) => `${projectId} ${key}`;

/** Versions are decimal integers without leading zeros (clock microseconds, then counted up). */
const isOlder = (a: string, b: string) => a.length < b.length || (a.length === b.length && a < b);

/**
 * Rendered read responses of project boards, in this replica's memory, each valid only under the board version
 * and the cache epoch it was rendered under: a change to the board (a new version) or to users and access (the
 * epoch) makes it unreachable at once. Requests for the same response at the same time render it once and
 * share it. Over the budget, the answers stored longest ago go first (an old version's answers among them).
 */
export class ResponseCache {
  /** By project and key, in the order they were stored: the order eviction takes them in. */
  private readonly entries = new Map<string, Entry>();
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
    const entryKey = entryKeyOf(projectId, key);
    const entry = this.entries.get(entryKey);
    if (entry && entry.version === version && entry.expiresAt > Date.now()) {
      this.observe('hit');
      return entry.rendered;
    }
    const flightKey = `${version} ${entryKey}`;
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
      this.store(entryKey, version, rendered, ticket);
      return rendered;
    } finally {
      this.inFlight.delete(flightKey);
    }
  }

  /**
   * Counts `bytes` kept with `rendered`, the answer `through` gave for `projectId` and `key` (a compressed copy of
   * it), against the budget for as long as that answer stays; nothing once it is gone or replaced (the copy then
   * lives only as long as the requests still sending it).
   */
  charge(projectId: number, key: string, rendered: RenderedBody, bytes: number): void {
    const entry = this.entries.get(entryKeyOf(projectId, key));
    if (entry?.rendered !== rendered) return;
    entry.size += bytes;
    this.bytes += bytes;
    this.evictOverBudget();
  }

  /** Everything goes: the epoch moved (a user renamed, access revoked) or can't be read. */
  clear(): void {
    this.entries.clear();
    this.bytes = 0;
  }

  /** Bytes held (the metric, tests). */
  get size(): number {
    return this.bytes;
  }

  private store(entryKey: string, version: string, rendered: RenderedBody, ticket: string): void {
    // The epoch moved while rendering: the body may show what was just revoked or renamed.
    if (ticket !== this.epoch.known) return;
    const size = rendered.body.length * 2;
    if (size > this.limits.maxBytes) return;
    const previous = this.entries.get(entryKey);
    // A slow render of an older version must not displace the newer one.
    if (previous && isOlder(version, previous.version)) return;
    if (previous) {
      this.entries.delete(entryKey); // stored again: now the newest
      this.bytes -= previous.size;
    }
    this.entries.set(entryKey, { rendered, version, size, expiresAt: Date.now() + this.limits.ttlMs });
    this.bytes += size;
    this.evictOverBudget();
  }

  private evictOverBudget(): void {
    for (const [oldestKey, oldest] of this.entries) {
      if (this.bytes <= this.limits.maxBytes) break;
      this.entries.delete(oldestKey);
      this.bytes -= oldest.size;
    }
  }
}
