import { DomainError, type RequestContext } from '@flowboard/service-kit';

/** Counts calls per method, and lets a test make chosen methods answer UNAVAILABLE. */
export class Calls {
  private readonly counts = new Map<string, number>();
  /** The request id and caller each method last saw in its metadata. */
  readonly lastContext = new Map<string, { requestId: string; userId?: number }>();
  readonly unavailable = new Set<string>();
  private readonly held = new Map<string, Promise<void>>();

  record(method: string, context: RequestContext): void {
    this.counts.set(method, this.count(method) + 1);
    // What travelled in the call's metadata: callerGone is the fake server's own view of the call, not sent.
    const { callerGone: _local, ...travelled } = context;
    this.lastContext.set(method, travelled);
    if (this.unavailable.has(method)) throw new DomainError('Unavailable', `${method} is down`);
  }

  /** Calls of `method` from now on wait (after being counted) until the returned function is called. */
  hold(method: string): () => void {
    let release = () => {};
    this.held.set(method, new Promise<void>((resolve) => (release = resolve)));
    return () => {
      this.held.delete(method);
      release();
    };
  }

  /** Resolves once `method` is not held. */
  async pass(method: string): Promise<void> {
    await this.held.get(method);
  }

  count(method: string): number {
    return this.counts.get(method) ?? 0;
  }
}
