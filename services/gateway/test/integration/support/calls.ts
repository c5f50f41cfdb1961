import { DomainError } from '@flowboard/service-kit';

/** Counts calls per method, and lets a test make chosen methods answer UNAVAILABLE. */
export class Calls {
  private readonly counts = new Map<string, number>();
  /** The request id and caller each method last saw in its metadata. */
  readonly lastContext = new Map<string, { requestId: string; userId?: number }>();
  readonly unavailable = new Set<string>();

  record(method: string, context: { requestId: string; userId?: number }): void {
    this.counts.set(method, this.count(method) + 1);
    this.lastContext.set(method, context);
    if (this.unavailable.has(method)) throw new DomainError('Unavailable', `${method} is down`);
  }

  count(method: string): number {
    return this.counts.get(method) ?? 0;
  }
}
