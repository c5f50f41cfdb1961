import { normalizeDescription, normalizeEventTypes, parseUpdateMask } from '../domain/webhook';
import type { CheckTarget } from './check-target';
import { webhookNotFound } from './get-webhook';
import type { WebhookChanges, WebhookRecord, WebhookStore } from './ports';

export interface UpdateWebhookInput {
  projectId: number;
  webhookId: number;
  /** Which of the fields below are set. */
  updateMask: string[];
  url: string;
  eventTypes: string[];
  active: boolean;
  description: string;
}

export type UpdateWebhook = (input: UpdateWebhookInput) => Promise<WebhookRecord>;

/** Only the masked fields change; the URL is checked as at create. */
export function makeUpdateWebhook(deps: { webhooks: WebhookStore; checkTarget: CheckTarget }): UpdateWebhook {
  return async (input) => {
    const mask = parseUpdateMask(input.updateMask);
    const changes: WebhookChanges = {};
    if (mask.has('event_types')) changes.eventTypes = normalizeEventTypes(input.eventTypes);
    if (mask.has('description')) changes.description = normalizeDescription(input.description);
    if (mask.has('active')) changes.active = input.active;
    // Existence first: a missing webhook is 404 whatever URL was sent.
    if (!(await deps.webhooks.find(input.projectId, input.webhookId))) throw webhookNotFound();
    if (mask.has('url')) changes.url = (await deps.checkTarget(input.url)).href;
    const updated = await deps.webhooks.update(input.projectId, input.webhookId, changes);
    if (!updated) throw webhookNotFound();
    return updated;
  };
}
