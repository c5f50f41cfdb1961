import { loadWebhooksProto, type webhooks } from '@flowboard/proto';
import type { DerivedClient, Upstream, UpstreamOptions } from '@flowboard/service-kit';

export const WEBHOOKS_SERVICE = 'flowboard.webhooks.v1.WebhooksService';

/** What createUpstream needs to know of webhooks. */
export function webhooksUpstream(): Pick<UpstreamOptions, 'services' | 'healthService'> {
  return {
    services: [loadWebhooksProto().flowboard.webhooks.v1.WebhooksService.service],
    healthService: WEBHOOKS_SERVICE,
  };
}

/**
 * webhooks' RPCs as functions, derived from the proto, each with the configured deadline. Reads retry on
 * UNAVAILABLE as the proto declares them (and UpdateWebhook, declared IDEMPOTENT there); creates, deletes, pings and
 * redeliveries never do. Through the upstream's breaker: while webhooks is down its routes answer 503 at once, and
 * nothing else calls it.
 */
export function createWebhooksClient(
  upstream: Upstream,
  deadlineMs: number,
): DerivedClient<webhooks.WebhooksServiceClient> {
  const { WebhooksService } = loadWebhooksProto().flowboard.webhooks.v1;
  return upstream.derive(WebhooksService, { deadlineMs });
}

export type WebhooksClient = ReturnType<typeof createWebhooksClient>;
