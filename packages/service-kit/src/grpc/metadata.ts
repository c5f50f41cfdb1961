import { Metadata } from '@grpc/grpc-js';
import type { ApiKeyRef, RequestContext } from '../context';

/** The caller's identity and request id travel in metadata, never in request messages. */
export const USER_ID_KEY = 'x-flowboard-user-id';
export const REQUEST_ID_KEY = 'x-request-id';
/** The caller's API key: its id, and its name percent-encoded (metadata values are ASCII). */
export const API_KEY_ID_KEY = 'x-flowboard-api-key-id';
export const API_KEY_NAME_KEY = 'x-flowboard-api-key-name';

export function contextToMetadata(context: RequestContext | undefined): Metadata {
  const metadata = new Metadata();
  if (context?.requestId) metadata.set(REQUEST_ID_KEY, context.requestId);
  if (context?.userId !== undefined) metadata.set(USER_ID_KEY, String(context.userId));
  if (context?.apiKey) {
    metadata.set(API_KEY_ID_KEY, String(context.apiKey.id));
    metadata.set(API_KEY_NAME_KEY, encodeURIComponent(context.apiKey.name));
  }
  return metadata;
}

export function metadataToContext(metadata: Metadata, fallbackRequestId: () => string): RequestContext {
  const requestId = metadata.get(REQUEST_ID_KEY)[0]?.toString() || fallbackRequestId();
  const userId = idOf(metadata.get(USER_ID_KEY)[0]?.toString());
  const apiKey = apiKeyOf(
    metadata.get(API_KEY_ID_KEY)[0]?.toString(),
    metadata.get(API_KEY_NAME_KEY)[0]?.toString(),
  );
  return { requestId, ...(userId === undefined ? {} : { userId }), ...(apiKey ? { apiKey } : {}) };
}

const idOf = (raw: string | undefined): number | undefined =>
  raw && /^\d{1,15}$/.test(raw) ? Number(raw) : undefined;

/** The key from its two headers (gRPC metadata, or the files service's internal HTTP); undefined if malformed. */
export function apiKeyOf(rawId: string | undefined, rawName: string | undefined): ApiKeyRef | undefined {
  const id = idOf(rawId);
  if (id === undefined) return undefined;
  try {
    return { id, name: decodeURIComponent(rawName ?? '') };
  } catch {
    return { id, name: '' }; // not percent-encoded as we write it: the id still says which key
  }
}
