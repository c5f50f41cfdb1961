import type { webhooks } from '@flowboard/proto';
import { unary, type Logger } from '@flowboard/service-kit';
import type { CreateWebhook } from '../application/create-webhook';
import type { DeleteWebhook } from '../application/delete-webhook';
import type { GetWebhook } from '../application/get-webhook';
import type { ListDeliveries } from '../application/list-deliveries';
import type { ListWebhooks } from '../application/list-webhooks';
import type { PingWebhook } from '../application/ping-webhook';
import type { RedeliverDelivery } from '../application/redeliver-delivery';
import type { UpdateWebhook } from '../application/update-webhook';
import { toDeliveryMessage, toWebhookMessage } from './mappers';

export interface WebhooksUseCases {
  createWebhook: CreateWebhook;
  listWebhooks: ListWebhooks;
  getWebhook: GetWebhook;
  updateWebhook: UpdateWebhook;
  deleteWebhook: DeleteWebhook;
  listDeliveries: ListDeliveries;
  redeliverDelivery: RedeliverDelivery;
  pingWebhook: PingWebhook;
}

/** gRPC request → use case → response. The gateway has authorized the caller for the project. */
export function webhooksHandlers(
  logger: Logger,
  useCases: WebhooksUseCases,
): webhooks.WebhooksServiceHandlers {
  return {
    CreateWebhook: unary(
      logger,
      async (request: webhooks.CreateWebhookRequest__Output): Promise<webhooks.CreateWebhookResponse> => {
        const { webhook, secret } = await useCases.createWebhook({
          projectId: request.project_id,
          url: request.url,
          eventTypes: request.event_types,
          active: request.active,
          description: request.description,
        });
        return { webhook: toWebhookMessage(webhook), secret };
      },
    ),

    ListWebhooks: unary(
      logger,
      async (request: webhooks.ListWebhooksRequest__Output): Promise<webhooks.ListWebhooksResponse> => {
        const list = await useCases.listWebhooks(request.project_id);
        return { webhooks: list.map(toWebhookMessage) };
      },
    ),

    GetWebhook: unary(
      logger,
      async (request: webhooks.GetWebhookRequest__Output): Promise<webhooks.GetWebhookResponse> => {
        const webhook = await useCases.getWebhook(request.project_id, request.webhook_id);
        return { webhook: toWebhookMessage(webhook) };
      },
    ),

    UpdateWebhook: unary(
      logger,
      async (request: webhooks.UpdateWebhookRequest__Output): Promise<webhooks.UpdateWebhookResponse> => {
        const webhook = await useCases.updateWebhook({
          projectId: request.project_id,
          webhookId: request.webhook_id,
          updateMask: request.update_mask,
          url: request.url,
          eventTypes: request.event_types,
          active: request.active,
          description: request.description,
        });
        return { webhook: toWebhookMessage(webhook) };
      },
    ),

    DeleteWebhook: unary(
      logger,
      async (request: webhooks.DeleteWebhookRequest__Output): Promise<webhooks.DeleteWebhookResponse> => {
        await useCases.deleteWebhook(request.project_id, request.webhook_id);
        return {};
      },
    ),

    ListDeliveries: unary(
      logger,
      async (request: webhooks.ListDeliveriesRequest__Output): Promise<webhooks.ListDeliveriesResponse> => {
        const { deliveries, totalItems, keyset } = await useCases.listDeliveries({
          projectId: request.project_id,
          webhookId: request.webhook_id,
          page: request.page,
          pageSize: request.page_size,
          keyset: request.keyset ? { afterId: request.keyset.after_id } : undefined,
        });
        // `keyset` answered (even for an empty page) tells the gateway this release paged by it.
        return { deliveries: deliveries.map(toDeliveryMessage), total_items: totalItems, keyset };
      },
    ),

    RedeliverDelivery: unary(
      logger,
      async (
        request: webhooks.RedeliverDeliveryRequest__Output,
      ): Promise<webhooks.RedeliverDeliveryResponse> => {
        const delivery = await useCases.redeliverDelivery(
          request.project_id,
          request.webhook_id,
          request.delivery_id,
        );
        return { delivery: toDeliveryMessage(delivery) };
      },
    ),

    PingWebhook: unary(
      logger,
      async (request: webhooks.PingWebhookRequest__Output, ctx): Promise<webhooks.PingWebhookResponse> => {
        const deliveryId = await useCases.pingWebhook(
          request.project_id,
          request.webhook_id,
          ctx.userId ?? 0,
        );
        return { delivery_id: deliveryId };
      },
    ),
  };
}
