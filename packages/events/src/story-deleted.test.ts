import { makeEvent, parseEvent } from './envelope';
import { storyDeletedV1 } from './index';

describe('boards.story-deleted.v1', () => {
  const data = { projectId: 3, storyId: 12, deletedBy: 1, deletedAt: '2026-12-06T10:00:00.000Z' };

  it('has its topic and round-trips', () => {
    expect(storyDeletedV1.topic).toBe('boards.story-deleted.v1');
    const event = makeEvent(storyDeletedV1, 'boards', data);
    expect(parseEvent(storyDeletedV1, JSON.stringify(event))).toEqual(event);
  });

  it('refuses a missing story id', () => {
    expect(() => makeEvent(storyDeletedV1, 'boards', { ...data, storyId: 0 })).toThrow();
  });
});
