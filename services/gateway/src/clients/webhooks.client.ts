import { loadWebhooksProto, type webhooks } from '@flowboard/proto';
import { deriveClient, type DerivedClient, type MetricsRegistry } from '@flowboard/service-kit';

export const WEBHOOKS_SERVICE = 'flowboard.webhooks.v1.WebhooksService';

/**
 * webhooks' RPCs as functions, derived from the proto, each with the configured deadline. Reads retry on
 * UNAVAILABLE as the proto declares them (and UpdateWebhook, declared IDEMPOTENT there); creates, deletes, pings and
 * redeliveries never do.
 */
export function createWebhooksClient(
  address: string,
  deadlineMs: number,
  metrics?: MetricsRegistry,
): DerivedClient<webhooks.WebhooksServiceClient> {
  const { WebhooksService } = loadWebhooksProto().flowboard.webhooks.v1;
  return deriveClient(WebhooksService, address, { deadlineMs, metrics });
}

export type WebhooksClient = ReturnType<typeof createWebhooksClient>;
