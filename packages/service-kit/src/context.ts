import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';

/** What every log line and every outgoing call of one request needs to know. */
/** An API key as a change names it: its id and its name (`""` when it has none). */
export interface ApiKeyRef {
  id: number;
  name: string;
}

export interface RequestContext {
  requestId: string;
  /** The authenticated caller, when there is one. */
  userId?: number;
  /**
   * The API key the caller came with, when there is one: every change the request makes names it (README
   * "Scoped API keys": which agent did this).
   */
  apiKey?: ApiKeyRef;
  /**
   * The ids of the changes (resource-changed events) the request's writes have committed so far, in order, where its
   * answer names them (`Flowboard-Changes`: a writer recognises its own changes on the change stream). Absent where
   * nobody answers with them.
   */
  changes?: string[];
  /**
   * Whether the caller has gone (its deadline passed, or it cancelled): work that has not started yet is not worth
   * starting, since nobody will read its answer (a write queued behind a busy board's lock, say).
   */
  callerGone?: () => boolean;
}

const storage = new AsyncLocalStorage<RequestContext>();

export const runWithContext = <T>(context: RequestContext, fn: () => T): T => storage.run(context, fn);
export const currentContext = (): RequestContext | undefined => storage.getStore();

/**
 * The header (HTTP) and metadata key (gRPC trailers) naming a write's changes: their event ids, comma-separated, in
 * the order they were made. Each is the `id` of the change's payload on the change stream and in webhooks.
 */
export const CHANGES_HEADER = 'flowboard-changes';

/** Notes that the current request's write made change `id` (a no-op where the request's answer names none). */
export function recordChange(id: string): void {
  storage.getStore()?.changes?.push(id);
}

/**
 * Where the current request's record of changes stands, to go back to it when the work since is undone (its
 * transaction rolled back): `undo()` forgets the changes recorded after `changesMark()`.
 */
export function changesMark(): { undo(): void } {
  const changes = storage.getStore()?.changes;
  const length = changes?.length ?? 0;
  return { undo: () => void (changes && (changes.length = Math.min(changes.length, length))) };
}

/** The CHANGES_HEADER value of a context's changes, or undefined when it has none. */
export const changesHeaderValue = (context: RequestContext | undefined): string | undefined =>
  context?.changes?.length ? context.changes.join(',') : undefined;
/**
 * 16 random hex digits. Taken from randomUUID, which draws from a cached entropy pool, rather than randomBytes,
 * which asks the kernel on every call (measurable on a gateway serving thousands of requests a second). The
 * slices skip the UUID's fixed version and variant digits.
 */
export const newRequestId = (): string => {
  const uuid = randomUUID();
  return uuid.slice(0, 8) + uuid.slice(9, 13) + uuid.slice(24, 28);
};

/** Whether the current request's caller has gone (RequestContext.callerGone); false outside a request. */
export const callerGone = (): boolean => storage.getStore()?.callerGone?.() === true;

/** The key the current request came with, for the changes it makes; undefined without one (a system action). */
export const callerApiKey = (): ApiKeyRef | undefined => storage.getStore()?.apiKey;

/**
 * `{actorKey}` of a change its actor makes now (a resource-changed event's field): the API key of the request being
 * served, which the context carries from the gateway through gRPC metadata beside the actor. Nothing for a system
 * action (actor 0) or outside a request.
 */
export function actorKeyOf(actorId: number): { actorKey?: ApiKeyRef } {
  const actorKey = actorId > 0 ? callerApiKey() : undefined;
  // Id 0: a key a membership older than scoped keys vouched for, which it does not name.
  return actorKey && actorKey.id > 0 ? { actorKey: { id: actorKey.id, name: actorKey.name } } : {};
}
