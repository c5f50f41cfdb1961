import type { WebhookStore } from './ports';

/** A project deleted in membership: its webhooks, deliveries and events go. Idempotent. */
export type ForgetProject = (projectId: number) => Promise<number>;

export const makeForgetProject =
  (webhooks: WebhookStore): ForgetProject =>
  (projectId) =>
    webhooks.deleteProject(projectId);
