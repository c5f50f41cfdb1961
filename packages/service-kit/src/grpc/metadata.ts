import { Metadata } from '@grpc/grpc-js';
import type { RequestContext } from '../context';

/** The caller's identity and request id travel in metadata, never in request messages. */
export const USER_ID_KEY = 'x-flowboard-user-id';
export const REQUEST_ID_KEY = 'x-request-id';

export function contextToMetadata(context: RequestContext | undefined): Metadata {
  const metadata = new Metadata();
  if (context?.requestId) metadata.set(REQUEST_ID_KEY, context.requestId);
  if (context?.userId !== undefined) metadata.set(USER_ID_KEY, String(context.userId));
  return metadata;
}

export function metadataToContext(metadata: Metadata, fallbackRequestId: () => string): RequestContext {
  const requestId = metadata.get(REQUEST_ID_KEY)[0]?.toString() || fallbackRequestId();
  const rawUser = metadata.get(USER_ID_KEY)[0]?.toString();
  const userId = rawUser && /^\d+$/.test(rawUser) ? Number(rawUser) : undefined;
  return userId === undefined ? { requestId } : { requestId, userId };
}
