import type { Envelope, ResourceChangedV1 } from '@flowboard/events';
import { makeEventIngestion } from './ingest-event';
import type { DeliveryStore, StoredEvent } from './ports';

const event: Envelope<ResourceChangedV1> = {
  id: '0b7e6c1e-2f6a-4d3b-9a51-6f1c2d3e4f50',
  type: 'flowboard.resource-changed',
  version: 1,
  occurredAt: '2026-01-02T03:04:05.678Z',
  source: 'boards',
  data: {
    projectId: 7,
    actorId: 42,
    type: 'story.created',
    subject: 'story:3',
    resource: { id: 3, text: 'Hi' },
  },
};

function setup(plan: { stored: boolean; subscribers: number }, withWebhooks: number[] = [7]) {
  const stored: StoredEvent[] = [];
  let rendered = 0;
  let woken = 0;
  let plans = 0;
  const { ingest, lookAhead } = makeEventIngestion({
    deliveries: {
      projectsWithWebhooks: async (ids: number[]) => ids.filter((id) => withWebhooks.includes(id)),
      ingestionPlan: async () => {
        plans++;
        return plan;
      },
      ingest: async (e: StoredEvent) => {
        stored.push(e);
        return plan.subscribers;
      },
    } as unknown as DeliveryStore,
    renderer: {
      render: async (e) => {
        rendered++;
        return {
          project: { id: e.data.projectId, name: 'Sudden Valley' },
          actor: { id: e.data.actorId },
          data: { ...e.data.resource, rendered: true },
        };
      },
    },
    wake: () => woken++,
  });
  return { ingest, lookAhead, stored, rendered: () => rendered, woken: () => woken, plans: () => plans };
}

describe('ingestEvent', () => {
  it('renders once and stores the body with the event, then wakes the dispatcher', async () => {
    const s = setup({ stored: false, subscribers: 2 });
    expect(await s.ingest(event)).toBe(2);
    expect(s.rendered()).toBe(1);
    expect(s.woken()).toBe(1);
    expect(s.stored).toEqual([
      {
        id: event.id,
        projectId: 7,
        type: 'story.created',
        subject: 'story:3',
        occurredAt: new Date('2026-01-02T03:04:05.678Z'),
        body: JSON.stringify({
          id: event.id,
          type: 'story.created',
          timestamp: '2026-01-02T03:04:05.678Z',
          project: { id: 7, name: 'Sudden Valley' },
          actor: { id: 42 },
          data: { id: 3, text: 'Hi', rendered: true },
        }),
      },
    ]);
  });

  it('neither renders nor stores an event nobody subscribes to, or one already stored', async () => {
    for (const plan of [
      { stored: false, subscribers: 0 },
      { stored: true, subscribers: 3 },
    ]) {
      const s = setup(plan);
      expect(await s.ingest(event)).toBe(0);
      expect(s.rendered()).toBe(0);
      expect(s.stored).toEqual([]);
      expect(s.woken()).toBe(0);
    }
  });

  it('asks nothing per event of a project the look-ahead found without webhooks', async () => {
    const s = setup({ stored: false, subscribers: 0 }, []);
    await s.lookAhead([7, 7, 8]);
    expect(await s.ingest(event)).toBe(0);
    expect([s.plans(), s.rendered()]).toEqual([0, 0]);
  });

  it('asks per event for a project with webhooks, or one the last look-ahead did not cover', async () => {
    const withWebhooks = setup({ stored: false, subscribers: 1 });
    await withWebhooks.lookAhead([7]);
    expect(await withWebhooks.ingest(event)).toBe(1);
    expect(withWebhooks.plans()).toBe(1);

    // The next batch's look-ahead replaces the last: project 7 is not in it, so it is asked about again.
    const uncovered = setup({ stored: false, subscribers: 1 }, []);
    await uncovered.lookAhead([7]);
    await uncovered.lookAhead([8]);
    expect(await uncovered.ingest(event)).toBe(1);
    expect(uncovered.plans()).toBe(1);
  });
});
