import { webhookNotFound } from './get-webhook';
import type { WebhookStore } from './ports';

export type DeleteWebhook = (projectId: number, webhookId: number) => Promise<void>;

/** Its deliveries go with it; an attempt in flight finishes, but its result is dropped. */
export const makeDeleteWebhook =
  (webhooks: WebhookStore): DeleteWebhook =>
  async (projectId, webhookId) => {
    if (!(await webhooks.delete(projectId, webhookId))) throw webhookNotFound();
  };
