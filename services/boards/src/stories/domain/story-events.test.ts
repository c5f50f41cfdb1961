import { storyUpdateEvents, type StoryShownState } from './story-events';

const story: StoryShownState = {
  text: 'Build Spec house',
  details: '',
  size: '',
  priority: '',
  color: 'grey',
  status: 'started',
  blockedReason: null,
  phase: { id: 2 },
  ownerId: null,
  deadline: null,
};
const events = (after: Partial<StoryShownState>, before: StoryShownState = story) =>
  storyUpdateEvents(before, { ...before, ...after });

describe('storyUpdateEvents', () => {
  it('nothing changed: no event (a PUT that changes nothing publishes nothing)', () => {
    expect(events({})).toEqual([]);
    expect(
      events(
        { deadline: new Date('2026-01-02T00:00:00Z') },
        { ...story, deadline: new Date('2026-01-02T00:00:00Z') },
      ),
    ).toEqual([]);
  });

  it.each<[string, Partial<StoryShownState>]>([
    ['text', { text: 'Burn it down' }],
    ['details', { details: 'Hot' }],
    ['size', { size: 'L' }],
    ['priority', { priority: 'high' }],
    ['color', { color: 'red' }],
    ['owner set', { ownerId: 5 }],
    ['deadline set', { deadline: new Date('2026-03-01T00:00:00Z') }],
  ])('%s → story.updated', (_name, after) => {
    expect(events(after)).toEqual(['story.updated']);
  });

  it('an owner or deadline cleared, or a deadline moved, is an update too', () => {
    const assigned = { ...story, ownerId: 5, deadline: new Date('2026-03-01T00:00:00Z') };
    expect(events({ ownerId: null }, assigned)).toEqual(['story.updated']);
    expect(events({ deadline: null }, assigned)).toEqual(['story.updated']);
    expect(events({ deadline: new Date('2026-03-02T00:00:00Z') }, assigned)).toEqual(['story.updated']);
  });

  it('a phase change is story.moved alone, even though the move sets the status', () => {
    expect(events({ phase: { id: 3 } })).toEqual(['story.moved']);
    expect(events({ phase: { id: 5 }, status: 'finished' })).toEqual(['story.moved']);
  });

  it('a status change in place other than (un)blocking is story.updated', () => {
    expect(events({ status: 'ready' })).toEqual(['story.updated']);
  });

  it('blocking and unblocking have their own events; their reason goes with them', () => {
    expect(events({ status: 'blocked', blockedReason: 'waiting' })).toEqual(['story.blocked']);
    const blocked = { ...story, status: 'blocked' as const, blockedReason: 'waiting' };
    expect(events({ status: 'started', blockedReason: null }, blocked)).toEqual(['story.unblocked']);
  });

  it('a new reason while the story stays blocked is story.updated', () => {
    const blocked = { ...story, status: 'blocked' as const, blockedReason: 'waiting' };
    expect(events({ blockedReason: 'still waiting' }, blocked)).toEqual(['story.updated']);
    expect(events({}, blocked)).toEqual([]);
  });

  it('several changes at once: updated, moved, then blocked or unblocked, in that order', () => {
    expect(events({ text: 'x', phase: { id: 3 }, status: 'blocked', blockedReason: '' })).toEqual([
      'story.updated',
      'story.moved',
      'story.blocked',
    ]);
    const blocked = { ...story, status: 'blocked' as const, blockedReason: 'waiting' };
    expect(
      events({ color: 'red', phase: { id: 4 }, status: 'started', blockedReason: null }, blocked),
    ).toEqual(['story.updated', 'story.moved', 'story.unblocked']);
    expect(events({ phase: { id: 3 }, status: 'blocked', blockedReason: '' })).toEqual([
      'story.moved',
      'story.blocked',
    ]);
  });
});
