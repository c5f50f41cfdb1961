import { DomainError, isDomainError } from '@flowboard/service-kit';
import { allows, type AccessLevel, type ProjectAccess } from '../../authz/access';
import type { membership } from '@flowboard/proto';

/**
 * Who may keep a change stream open, and how many: the per-key cap on a replica's open streams, and the access
 * checks an open stream repeats (events.routes.ts). What they need of the gateway's authorization is narrowed to
 * the calls they make, so tests give them fakes.
 */

/** An API key's cap of open streams on this replica: a slot is taken before subscribing and given back once. */
export class StreamSlots {
  private readonly open = new Map<string, number>();

  constructor(private readonly maxPerKey: number) {
    if (!Number.isInteger(maxPerKey) || maxPerKey < 1) throw new RangeError(`not a stream cap: ${maxPerKey}`);
  }

  /** A slot for the key, or undefined when it has `maxPerKey` open; the release gives it back (once, however often called). */
  take(keyHash: string): (() => void) | undefined {
    const count = this.open.get(keyHash) ?? 0;
    if (count >= this.maxPerKey) return undefined;
    this.open.set(keyHash, count + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.open.get(keyHash) ?? 1) - 1;
      if (left > 0) this.open.set(keyHash, left);
      else this.open.delete(keyHash);
    };
  }

  /** The key's open streams. */
  count(keyHash: string): number {
    return this.open.get(keyHash) ?? 0;
  }

  /** Keys with a stream open. */
  get keys(): number {
    return this.open.size;
  }
}

/** The calls an access check makes (ApiKeyAuthenticator, ProjectAccessResolver, CacheEpoch). */
export interface AccessCheckDeps {
  apiKeys: { authenticate(rawKey: string, keyHash?: string): Promise<{ user: membership.User__Output }> };
  access: { resolve(projectId: number, userId: number): Promise<ProjectAccess> };
  /** Reads the cache epoch (never rejects): local decisions dropped by an invalidation are not used after it. */
  refreshEpoch(): Promise<void>;
}

/** Whose access a stream checks: its request's key and the project. */
export interface StreamCaller {
  rawKey: string;
  keyHash: string;
  projectId: number;
  needed: AccessLevel;
}

/**
 * One check, as the request path makes it (edge/caller.ts): the key authenticates (401 if deleted or disabled),
 * the user is a member (404 if removed) with at least the level needed (403). `lost` carries that error; `failed`
 * is a check that could not decide (a dependency down).
 */
export type AccessVerdict =
  { kind: 'granted' } | { kind: 'lost'; error: DomainError } | { kind: 'failed'; error: unknown };

const LOST_KINDS = new Set(['Unauthenticated', 'NotFound', 'PermissionDenied']);

export async function checkAccess(deps: AccessCheckDeps, caller: StreamCaller): Promise<AccessVerdict> {
  try {
    await deps.refreshEpoch();
    const { user } = await deps.apiKeys.authenticate(caller.rawKey, caller.keyHash);
    const access = await deps.access.resolve(caller.projectId, user.id);
    if (!allows(access.access, caller.needed)) {
      return {
        kind: 'lost',
        error: new DomainError('PermissionDenied', `This needs ${caller.needed} access to the project.`),
      };
    }
    return { kind: 'granted' };
  } catch (error) {
    if (isDomainError(error) && LOST_KINDS.has(error.kind)) return { kind: 'lost', error };
    return { kind: 'failed', error };
  }
}

/** Consecutive checks that could not decide before an open stream is closed (`error`: its client resumes). */
export const MAX_UNDECIDED_CHECKS = 3;

export interface AccessWatchEvents {
  /** Access is gone: close the stream (`revoked`). */
  lost(error: DomainError): void;
  /** MAX_UNDECIDED_CHECKS checks in a row could not decide: close the stream (`error`). */
  undecided(error: unknown): void;
}

/**
 * Repeats the access check every `everyMs` while a stream is open, one check at a time, and says once when access
 * is lost or cannot be told any more. The timer is made in the request's context, so the checks' logs and gRPC
 * calls carry its request id and caller.
 */
export function watchAccess(
  check: () => Promise<AccessVerdict>,
  everyMs: number,
  events: AccessWatchEvents,
): { stop(): void } {
  let stopped = false;
  let running = false;
  let undecided = 0;
  const timer = setInterval(() => {
    if (running || stopped) return;
    running = true;
    void check()
      .then((verdict) => {
        if (stopped) return;
        if (verdict.kind === 'granted') {
          undecided = 0;
          return;
        }
        if (verdict.kind === 'lost') {
          stop();
          events.lost(verdict.error);
          return;
        }
        if (++undecided >= MAX_UNDECIDED_CHECKS) {
          stop();
          events.undecided(verdict.error);
        }
      })
      .finally(() => (running = false));
  }, everyMs);
  timer.unref();
  const stop = () => {
    stopped = true;
    clearInterval(timer);
  };
  return { stop };
}

/**
 * One cache-epoch read shared by every check that asks within `maxAgeMs` of it: a replica with thousands of open
 * streams reads the epoch about once a second, not once per stream per check. A check sees an invalidation made
 * at most `maxAgeMs` before it.
 */
export function sharedRefresh(
  refresh: () => Promise<void>,
  maxAgeMs: number,
  now = () => Date.now(),
): () => Promise<void> {
  let last: { at: number; done: Promise<void> } | undefined;
  return () => {
    const at = now();
    if (!last || at - last.at >= maxAgeMs) last = { at, done: refresh() };
    return last.done;
  };
}
