import { DomainError } from '@flowboard/service-kit';
import type { WebhookRecord, WebhookStore } from './ports';

export type GetWebhook = (projectId: number, webhookId: number) => Promise<WebhookRecord>;

export const webhookNotFound = () => new DomainError('NotFound', 'Webhook not found.');

/** A webhook of another project is NotFound, like a missing one. */
export const makeGetWebhook =
  (webhooks: WebhookStore): GetWebhook =>
  async (projectId, webhookId) => {
    const webhook = await webhooks.find(projectId, webhookId);
    if (!webhook) throw webhookNotFound();
    return webhook;
  };
