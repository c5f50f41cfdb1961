import type { WebhookRecord, WebhookStore } from './ports';

export type ListWebhooks = (projectId: number) => Promise<WebhookRecord[]>;

export const makeListWebhooks =
  (webhooks: WebhookStore): ListWebhooks =>
  (projectId) =>
    webhooks.list(projectId);
