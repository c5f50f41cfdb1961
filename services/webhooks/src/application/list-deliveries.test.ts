import { makeListDeliveries } from './list-deliveries';
import type { DeliveryStore, WebhookRecord, WebhookStore } from './ports';

function setup() {
  const calls: string[] = [];
  const listDeliveries = makeListDeliveries({
    webhooks: {
      find: async (projectId: number, webhookId: number) =>
        projectId === 7 && webhookId === 3 ? ({ id: 3, projectId: 7 } as WebhookRecord) : undefined,
    } as unknown as WebhookStore,
    deliveries: {
      list: async (webhookId: number, offset: number, limit: number) => {
        calls.push(`list ${webhookId} ${offset} ${limit}`);
        return { deliveries: [], total: 4 };
      },
      listAfter: async (webhookId: number, afterId: number, limit: number) => {
        calls.push(`listAfter ${webhookId} ${afterId} ${limit}`);
        return { deliveries: [], total: 4, more: afterId === 0 };
      },
    } as unknown as DeliveryStore,
  });
  return { listDeliveries, calls };
}

describe('ListDeliveries', () => {
  it('pages by number without a keyset, and answers no keyset then', async () => {
    const { listDeliveries, calls } = setup();
    const answer = await listDeliveries({ projectId: 7, webhookId: 3, page: 2, pageSize: 0 });
    expect(answer).toEqual({ deliveries: [], totalItems: 4 });
    expect(calls).toEqual(['list 3 20 20']);
  });

  it('pages by keyset when asked, ignoring page, with the same page size default and bound', async () => {
    const { listDeliveries, calls } = setup();
    const keyset = (afterId: number, pageSize = 0, page = 0) =>
      listDeliveries({ projectId: 7, webhookId: 3, page, pageSize, keyset: { afterId } });
    expect(await keyset(0, 0, -5)).toEqual({ deliveries: [], totalItems: 4, keyset: { more: true } });
    expect(await keyset(12, 100)).toEqual({ deliveries: [], totalItems: 4, keyset: { more: false } });
    expect(calls).toEqual(['listAfter 3 0 20', 'listAfter 3 12 100']);

    await expect(keyset(0, 101)).rejects.toMatchObject({
      kind: 'InvalidArgument',
      problem: 'invalid-parameter',
    });
    await expect(keyset(-1)).rejects.toMatchObject({
      kind: 'InvalidArgument',
      problem: 'invalid-parameter',
      message: "Invalid cursor: 'after_id'.",
    });
    await expect(keyset(0.5)).rejects.toMatchObject({ kind: 'InvalidArgument' });
    await expect(
      listDeliveries({ projectId: 8, webhookId: 3, page: 0, pageSize: 0, keyset: { afterId: 0 } }),
    ).rejects.toMatchObject({ kind: 'NotFound' });
    expect(calls).toHaveLength(2);
  });
});
