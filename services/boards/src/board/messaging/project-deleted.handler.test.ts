import { makeEvent, projectDeletedV1 } from '@flowboard/events';
import { PermanentMessageError, type IncomingMessage } from '@flowboard/messaging';
import { createLogger } from '@flowboard/service-kit';
import { createProjectDeletedHandler } from './project-deleted.handler';

const message = (value: string | null): IncomingMessage => ({
  topic: projectDeletedV1.topic,
  partition: 0,
  offset: '0',
  key: '3',
  value: value === null ? null : Buffer.from(value),
  headers: {},
});

describe('project-deleted handler', () => {
  const setup = () => {
    const deleteProjectBoard = jest.fn().mockResolvedValue({ firstTime: true });
    const handle = createProjectDeletedHandler({ deleteProjectBoard, logger: createLogger('t', 'silent') });
    return { deleteProjectBoard, handle };
  };
  const event = makeEvent(projectDeletedV1, 'membership', {
    projectId: 3,
    projectName: 'Sudden Valley',
    ownerId: 1,
    deletedBy: 1,
    deletedAt: '2026-12-06T10:00:00.000Z',
  });

  it('deletes the board of the event’s project, passing the event id', async () => {
    const { deleteProjectBoard, handle } = setup();
    await handle(message(JSON.stringify(event)));
    expect(deleteProjectBoard).toHaveBeenCalledWith(3, event.id);
  });

  it.each([
    ['not JSON', 'nope'],
    ['empty', null],
    ['another event', JSON.stringify({ ...event, type: 'membership.invite-created' })],
    ['bad data', JSON.stringify({ ...event, data: { ...event.data, projectId: -1 } })],
  ])('dead-letters %s without touching the database', async (_name, value) => {
    const { deleteProjectBoard, handle } = setup();
    await expect(handle(message(value))).rejects.toBeInstanceOf(PermanentMessageError);
    expect(deleteProjectBoard).not.toHaveBeenCalled();
  });

  it('lets a database failure through, so the message is retried', async () => {
    const { deleteProjectBoard, handle } = setup();
    deleteProjectBoard.mockRejectedValueOnce(new Error('connection refused'));
    const err = await handle(message(JSON.stringify(event))).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect(err).not.toBeInstanceOf(PermanentMessageError);
  });
});
