import { makeEvent, projectDeletedV1, storyDeletedV1 } from '@flowboard/events';
import { PermanentMessageError, type IncomingMessage } from '@flowboard/messaging';
import { createLogger } from '@flowboard/service-kit';
import { createDeletionEventsHandler } from './deletion-events.handler';

const message = (topic: string, value: unknown): IncomingMessage => ({
  topic,
  partition: 0,
  offset: '0',
  key: '5',
  value: Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)),
  headers: {},
});

function handler(fail?: Error) {
  const purged: Array<[number, number | undefined]> = [];
  const handle = createDeletionEventsHandler({
    purge: async (projectId, storyId) => {
      if (fail) throw fail;
      purged.push([projectId, storyId]);
      return { deleted: 0 };
    },
    logger: createLogger('test', 'silent'),
  });
  return { handle, purged };
}

const now = new Date().toISOString();
const valid = { projectId: 5, storyId: 9, deletedBy: 1, deletedAt: now };

describe('deletion events', () => {
  it('purges the whole project on project-deleted and one story on story-deleted', async () => {
    const { handle, purged } = handler();
    await handle(
      message(
        projectDeletedV1.topic,
        makeEvent(projectDeletedV1, 'membership', {
          projectId: 5,
          projectName: 'P',
          ownerId: 1,
          deletedBy: 1,
          deletedAt: now,
        }),
      ),
    );
    await handle(
      message(
        storyDeletedV1.topic,
        makeEvent(storyDeletedV1, 'boards', { projectId: 5, storyId: 9, deletedBy: 1, deletedAt: now }),
      ),
    );
    expect(purged).toEqual([
      [5, undefined],
      [5, 9],
    ]);
  });

  it('dead-letters an unreadable event or an unexpected topic, purging nothing', async () => {
    const { handle, purged } = handler();
    await expect(handle(message(storyDeletedV1.topic, 'not json'))).rejects.toBeInstanceOf(
      PermanentMessageError,
    );
    // A valid envelope whose data is not a story deletion.
    const wrongData = { ...makeEvent(storyDeletedV1, 'boards', valid), data: { projectId: 'five' } };
    await expect(handle(message(storyDeletedV1.topic, wrongData))).rejects.toBeInstanceOf(
      PermanentMessageError,
    );
    await expect(handle(message('other.topic.v1', {}))).rejects.toBeInstanceOf(PermanentMessageError);
    expect(purged).toEqual([]);
  });

  it('lets a purge failure through, so the message is retried rather than skipped', async () => {
    const { handle } = handler(new Error('database down'));
    const event = makeEvent(storyDeletedV1, 'boards', {
      projectId: 5,
      storyId: 9,
      deletedBy: 1,
      deletedAt: now,
    });
    const error = await handle(message(storyDeletedV1.topic, event)).catch((e: unknown) => e);
    expect(error).toEqual(new Error('database down'));
    expect(error).not.toBeInstanceOf(PermanentMessageError);
  });
});
