import type { Envelope, ResourceChangedV1 } from '@flowboard/events';
import { makeIngestEvent } from './ingest-event';
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

function setup(plan: { stored: boolean; subscribers: number }) {
  const stored: StoredEvent[] = [];
  let rendered = 0;
  let woken = 0;
  const ingest = makeIngestEvent({
    deliveries: {
      ingestionPlan: async () => plan,
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
  return { ingest, stored, rendered: () => rendered, woken: () => woken };
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
});
