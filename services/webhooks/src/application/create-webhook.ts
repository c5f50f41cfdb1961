import { DomainError } from '@flowboard/service-kit';
import { generateSecret } from '../domain/secret';
import { normalizeDescription, normalizeEventTypes } from '../domain/webhook';
import type { CheckTarget } from './check-target';
import type { WebhookRecord, WebhookStore } from './ports';

export interface CreateWebhookInput {
  projectId: number;
  url: string;
  eventTypes: string[];
  active: boolean;
  description: string;
}

/** Answers the webhook and its new secret: the only time the secret leaves the service. */
export type CreateWebhook = (
  input: CreateWebhookInput,
) => Promise<{ webhook: WebhookRecord; secret: string }>;

export function makeCreateWebhook(deps: {
  webhooks: WebhookStore;
  checkTarget: CheckTarget;
  maxPerProject: number;
}): CreateWebhook {
  return async (input) => {
    if (!Number.isSafeInteger(input.projectId) || input.projectId < 1) {
      throw new DomainError('InvalidArgument', 'A webhook belongs to a project: project_id is required.');
    }
    const eventTypes = normalizeEventTypes(input.eventTypes);
    const description = normalizeDescription(input.description);
    const target = await deps.checkTarget(input.url);
    const secret = generateSecret();
    const webhook = await deps.webhooks.create(
      { projectId: input.projectId, url: target.href, eventTypes, active: input.active, description, secret },
      deps.maxPerProject,
    );
    return { webhook, secret };
  };
}
