import { normalizeDescription, normalizeEventTypes, parseUpdateMask, subscribes } from './webhook';

describe('event types', () => {
  it('keeps known types once, in order; empty means every type', () => {
    expect(normalizeEventTypes(['story.moved', 'task.created', 'story.moved'])).toEqual([
      'story.moved',
      'task.created',
    ]);
    expect(normalizeEventTypes([])).toEqual([]);
    expect(subscribes([], 'comment.deleted')).toBe(true);
    expect(subscribes(['story.moved'], 'story.moved')).toBe(true);
    expect(subscribes(['story.moved'], 'story.updated')).toBe(false);
  });

  it('refuses unknown types, pings included (a ping is asked for, not subscribed to)', () => {
    expect(() => normalizeEventTypes(['story.created', 'story.exploded'])).toThrow(
      expect.objectContaining({
        kind: 'InvalidArgument',
        message: expect.stringMatching(/^Unknown event type: story\.exploded\./),
      }),
    );
    expect(() => normalizeEventTypes(['webhook.ping'])).toThrow(/Unknown event type/);
  });
});

describe('description and update mask', () => {
  it('trims the description and bounds it', () => {
    expect(normalizeDescription('  CI  ')).toBe('CI');
    expect(() => normalizeDescription('x'.repeat(501))).toThrow(/longer than 500/);
  });

  it('names updatable fields only', () => {
    expect([...parseUpdateMask(['url', 'active', 'url'])]).toEqual(['url', 'active']);
    expect(() => parseUpdateMask(['secret'])).toThrow(/Cannot update 'secret'/);
  });
});
