import { createRequire } from 'node:module';

/** The one kafkajs release the fix below was written against (its last release, 2.2.4). */
const PATCHED_VERSION = '2.2.4';
/** kafkajs's own retry interval for queued requests while the connection is busy or throttled. */
const CHECK_PENDING_REQUESTS_INTERVAL_MS = 10;

interface RequestQueueState {
  pending: unknown[];
  throttledUntil: number;
  throttleCheckTimeoutId: NodeJS.Timeout | null;
  checkPendingRequests(): void;
}

/**
 * kafkajs 2.2.4's replacement for `RequestQueue.scheduleCheckPendingRequests`, with one change: when nothing is
 * queued and the broker is not throttling us, no timer is armed. The original arms one anyway, with a negative
 * delay, and its callback arms the next: a 1 ms loop for as long as the connection lives (tulios/kafkajs#1556,
 * open upstream, no release since). Here that cost each idle consumer about 2 % of a core. A request queued
 * later arms its own check (`push` calls this), as does every answer (`checkPendingRequests`).
 */
export function scheduleCheckPendingRequests(this: RequestQueueState): void {
  if (this.throttleCheckTimeoutId) return;
  let delay = this.throttledUntil - Date.now();
  if (this.pending.length > 0) delay = delay > 0 ? delay : CHECK_PENDING_REQUESTS_INTERVAL_MS;
  else if (delay <= 0) return;
  this.throttleCheckTimeoutId = setTimeout(() => {
    this.throttleCheckTimeoutId = null;
    this.checkPendingRequests();
  }, delay);
}

let applied: boolean | undefined;

/**
 * Installs the fix above into the kafkajs this process loaded; only for the release it was written against
 * (another release is left alone: it may have fixed the loop, or changed the queue). True when installed.
 */
export function fixKafkajsIdleLoop(): boolean {
  if (applied !== undefined) return applied;
  const load = createRequire(__filename);
  const version = (load('kafkajs/package.json') as { version: string }).version;
  applied = version === PATCHED_VERSION;
  if (applied) {
    const RequestQueue = load('kafkajs/src/network/requestQueue') as { prototype: RequestQueueState };
    Object.assign(RequestQueue.prototype, { scheduleCheckPendingRequests });
  }
  return applied;
}
