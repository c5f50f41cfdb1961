import { DomainError } from '@flowboard/service-kit';
import { webhookNotFound } from './get-webhook';
import type { DeliveryRecord, DeliveryStore, WebhookStore } from './ports';

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

export interface ListDeliveriesInput {
  projectId: number;
  webhookId: number;
  /** From 1; 0 = 1. Ignored with a keyset. */
  page: number;
  /** 1..MAX_PAGE_SIZE; 0 = DEFAULT_PAGE_SIZE. */
  pageSize: number;
  /** Cursor paging (README "Sync: cursors and updatedSince"): the deliveries after this id, oldest first. */
  keyset?: { afterId: number };
}

export type ListDeliveries = (input: ListDeliveriesInput) => Promise<{
  deliveries: DeliveryRecord[];
  totalItems: number;
  /** Set exactly when the input had a keyset: whether more deliveries follow this page. */
  keyset?: { more: boolean };
}>;

const invalidParameter = (message: string) =>
  new DomainError('InvalidArgument', message, { problem: 'invalid-parameter' });

/**
 * The webhook's delivery log, each delivery with its attempts: newest first by page, or oldest first after a
 * delivery id by keyset (ids never change, so a walk stays exact while deliveries come and go).
 */
export function makeListDeliveries(deps: {
  webhooks: WebhookStore;
  deliveries: DeliveryStore;
}): ListDeliveries {
  return async (input) => {
    const page = input.page || 1;
    const pageSize = input.pageSize || DEFAULT_PAGE_SIZE;
    if (!input.keyset && (!Number.isSafeInteger(page) || page < 1)) throw invalidParameter("Invalid 'page'.");
    if (!Number.isSafeInteger(pageSize) || pageSize < 1 || pageSize > MAX_PAGE_SIZE) {
      throw invalidParameter(`Invalid 'pageSize': 1 to ${MAX_PAGE_SIZE}.`);
    }
    const afterId = input.keyset?.afterId;
    if (afterId !== undefined && (!Number.isSafeInteger(afterId) || afterId < 0)) {
      throw invalidParameter("Invalid cursor: 'after_id'.");
    }
    if (!(await deps.webhooks.find(input.projectId, input.webhookId))) throw webhookNotFound();
    if (afterId !== undefined) {
      const { deliveries, total, more } = await deps.deliveries.listAfter(input.webhookId, afterId, pageSize);
      return { deliveries, totalItems: total, keyset: { more } };
    }
    const { deliveries, total } = await deps.deliveries.list(
      input.webhookId,
      (page - 1) * pageSize,
      pageSize,
    );
    return { deliveries, totalItems: total };
  };
}
