import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';

/** What every log line and every outgoing call of one request needs to know. */
export interface RequestContext {
  requestId: string;
  /** The authenticated caller, when there is one. */
  userId?: number;
}

const storage = new AsyncLocalStorage<RequestContext>();

export const runWithContext = <T>(context: RequestContext, fn: () => T): T => storage.run(context, fn);
export const currentContext = (): RequestContext | undefined => storage.getStore();
export const newRequestId = (): string => randomBytes(8).toString('hex');
