import { parseEvent } from './envelope';
import { resourceChangedMessage, resourceChangedV1, resourceSubject } from './resource-changed';

describe('flowboard.resource-changed.v1', () => {
  const data = {
    projectId: 3,
    actorId: 7,
    type: 'task.created' as const,
    subject: resourceSubject('story', 12),
    resource: { id: 40, text: 'Paint' },
  };

  it('an outbox message: the envelope as payload, its id as the row id, keyed by the project', () => {
    const message = resourceChangedMessage('boards', data);
    expect(message).toMatchObject({ topic: 'flowboard.resource-changed.v1', key: '3' });
    const event = parseEvent(resourceChangedV1, JSON.stringify(message.payload));
    expect(event.id).toBe(message.id);
    expect(event.source).toBe('boards');
    expect(event.data).toEqual({ ...data, subject: 'story:12' });
  });

  it('refuses data outside the contract when the message is made, not when it is consumed', () => {
    expect(() => resourceChangedMessage('boards', { ...data, projectId: 0 })).toThrow();
    expect(() => resourceChangedMessage('boards', { ...data, actorId: -1 })).toThrow();
    expect(() =>
      resourceChangedMessage('boards', { ...data, type: 'story.archived' as unknown as 'story.created' }),
    ).toThrow();
  });
});
