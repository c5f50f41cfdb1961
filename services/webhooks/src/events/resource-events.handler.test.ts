import { makeEvent, projectDeletedV1, resourceChangedV1 } from '@flowboard/events';
import { PermanentMessageError, type IncomingMessage } from '@flowboard/messaging';
import { createLogger } from '@flowboard/service-kit';
import { createResourceEventsHandler } from './resource-events.handler';

const message = (topic: string, value: unknown): IncomingMessage => ({
  topic,
  partition: 0,
  offset: '0',
  key: '7',
  value: Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)),
  headers: {},
});

function setup() {
  const ingested: string[] = [];
  const forgotten: number[] = [];
  const lookedAhead: number[][] = [];
  const { handle, lookAhead } = createResourceEventsHandler({
    ingestion: {
      ingest: async (event) => {
        ingested.push(event.id);
        return 1;
      },
      lookAhead: async (projectIds) => void lookedAhead.push(projectIds),
    },
    forgetProject: async (projectId) => {
      forgotten.push(projectId);
      return 1;
    },
    logger: createLogger('test', 'silent'),
  });
  return { handle, lookAhead, lookedAhead, ingested, forgotten };
}

describe('resource events handler', () => {
  it('ingests change events and forgets deleted projects', async () => {
    const s = setup();
    const changed = makeEvent(resourceChangedV1, 'boards', {
      projectId: 7,
      actorId: 1,
      type: 'story.created',
      subject: 'story:1',
      resource: { id: 1 },
    });
    await s.handle(message(resourceChangedV1.topic, changed));
    const deleted = makeEvent(projectDeletedV1, 'membership', {
      projectId: 7,
      projectName: 'P',
      ownerId: 1,
      deletedBy: 1,
      deletedAt: new Date().toISOString(),
    });
    await s.handle(message(projectDeletedV1.topic, deleted));
    expect(s.ingested).toEqual([changed.id]);
    expect(s.forgotten).toEqual([7]);
  });

  it("looks ahead at the projects of a batch's change events, by their keys", async () => {
    const s = setup();
    const keyed = (topic: string, key: string | null) => ({ ...message(topic, '{}'), key });
    await s.lookAhead([
      keyed(resourceChangedV1.topic, '7'),
      keyed(projectDeletedV1.topic, '8'),
      keyed(resourceChangedV1.topic, 'not-a-project'),
      keyed(resourceChangedV1.topic, null),
      keyed(resourceChangedV1.topic, '9'),
    ]);
    expect(s.lookedAhead).toEqual([[7, 9]]);
  });

  it('dead-letters what can never be read', async () => {
    const s = setup();
    await expect(s.handle(message(resourceChangedV1.topic, 'not json'))).rejects.toBeInstanceOf(
      PermanentMessageError,
    );
    const noProject = makeEvent(resourceChangedV1, 'x', {
      projectId: 1,
      actorId: 0,
      type: 'story.created',
      subject: 's',
      resource: {},
    });
    delete (noProject.data as { projectId?: number }).projectId;
    await expect(s.handle(message(resourceChangedV1.topic, noProject))).rejects.toBeInstanceOf(
      PermanentMessageError,
    );
    await expect(s.handle(message('elsewhere', '{}'))).rejects.toBeInstanceOf(PermanentMessageError);
    expect(s.ingested).toEqual([]);
  });

  it("skips an event of a type it does not know (a newer producer's), and reads the next one", async () => {
    const s = setup();
    const newer = makeEvent(resourceChangedV1, 'boards', {
      projectId: 1,
      actorId: 0,
      type: 'story.created',
      subject: 'phase:3',
      resource: {},
    });
    (newer.data as { type: string }).type = 'board.archived';
    await expect(s.handle(message(resourceChangedV1.topic, newer))).resolves.toBeUndefined();
    const known = makeEvent(resourceChangedV1, 'boards', {
      projectId: 1,
      actorId: 0,
      type: 'story.created',
      subject: 'story:4',
      resource: { id: 4 },
    });
    await s.handle(message(resourceChangedV1.topic, known));
    expect(s.ingested).toEqual([known.id]);
  });

  it('lets other failures through, so the partition waits and retries', async () => {
    const { handle } = createResourceEventsHandler({
      ingestion: {
        ingest: async () => {
          throw new Error('connection refused');
        },
        lookAhead: async () => undefined,
      },
      forgetProject: async () => 0,
      logger: createLogger('test', 'silent'),
    });
    const changed = makeEvent(resourceChangedV1, 'boards', {
      projectId: 7,
      actorId: 1,
      type: 'task.deleted',
      subject: 'story:1',
      resource: {},
    });
    await expect(handle(message(resourceChangedV1.topic, changed))).rejects.toThrow('connection refused');
  });
});
