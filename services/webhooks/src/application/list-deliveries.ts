import { DomainError } from '@flowboard/service-kit';
import { webhookNotFound } from './get-webhook';
import type { DeliveryRecord, DeliveryStore, WebhookStore } from './ports';

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

export interface ListDeliveriesInput {
  projectId: number;
  webhookId: number;
  /** From 1; 0 = 1. */
  page: number;
  /** 1..MAX_PAGE_SIZE; 0 = DEFAULT_PAGE_SIZE. */
  pageSize: number;
}

export type ListDeliveries = (
  input: ListDeliveriesInput,
) => Promise<{ deliveries: DeliveryRecord[]; totalItems: number }>;

const invalidParameter = (message: string) =>
  new DomainError('InvalidArgument', message, { problem: 'invalid-parameter' });

/** The webhook's delivery log, newest first, each delivery with its attempts. */
export function makeListDeliveries(deps: {
  webhooks: WebhookStore;
  deliveries: DeliveryStore;
}): ListDeliveries {
  return async (input) => {
    const page = input.page || 1;
    const pageSize = input.pageSize || DEFAULT_PAGE_SIZE;
    if (!Number.isSafeInteger(page) || page < 1) throw invalidParameter("Invalid 'page'.");
    if (!Number.isSafeInteger(pageSize) || pageSize < 1 || pageSize > MAX_PAGE_SIZE) {
      throw invalidParameter(`Invalid 'pageSize': 1 to ${MAX_PAGE_SIZE}.`);
    }
    if (!(await deps.webhooks.find(input.projectId, input.webhookId))) throw webhookNotFound();
    const { deliveries, total } = await deps.deliveries.list(
      input.webhookId,
      (page - 1) * pageSize,
      pageSize,
    );
    return { deliveries, totalItems: total };
  };
}
