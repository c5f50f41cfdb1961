import { DomainError } from '@flowboard/service-kit';
import { nextStatus, type StatusChange, type StatusState } from './story-status';

const backlog = { position: 0, lastPosition: 4 };
const working = { position: 2, lastPosition: 4 };
const archive = { position: 4, lastPosition: 4 };
const planned: StatusState = { status: 'planned', blockedReason: null };
const started: StatusState = { status: 'started', blockedReason: null };
const blocked: StatusState = { status: 'blocked', blockedReason: 'waiting' };

describe('nextStatus', () => {
  it.each<[string, StatusState, StatusChange, StatusState]>([
    ['move to a middle phase starts', planned, { current: backlog, move: working }, started],
    [
      'move to Archive finishes',
      started,
      { current: working, move: archive },
      { status: 'finished', blockedReason: null },
    ],
    ['move to Backlog plans', blocked, { current: working, move: backlog }, planned],
    ['move clears blocked', blocked, { current: working, move: { position: 1, lastPosition: 4 } }, started],
    [
      'status in a middle phase',
      started,
      { current: working, status: 'Ready' },
      { status: 'ready', blockedReason: null },
    ],
    [
      'blocked with a reason',
      started,
      { current: working, status: 'blocked', blockedReason: 'why' },
      { status: 'blocked', blockedReason: 'why' },
    ],
    ['blocked without a reason keeps the old one', blocked, { current: working, status: 'blocked' }, blocked],
    [
      'blocked from nothing is ""',
      started,
      { current: working, status: 'blocked' },
      { status: 'blocked', blockedReason: '' },
    ],
    ['leaving blocked clears the reason', blocked, { current: working, status: 'started' }, started],
    ['a reason while not blocked is ignored', started, { current: working, blockedReason: 'x' }, started],
    [
      'a reason while blocked replaces it',
      blocked,
      { current: working, blockedReason: 'new' },
      { status: 'blocked', blockedReason: 'new' },
    ],
    [
      'move first, then status',
      planned,
      { current: backlog, move: working, status: 'blocked', blockedReason: 'b' },
      { status: 'blocked', blockedReason: 'b' },
    ],
  ])('%s', (_name, state, change, expected) => {
    expect(nextStatus(state, change)).toEqual(expected);
  });

  it.each<[string, StatusChange]>([
    ['planned', { current: working, status: 'planned' }],
    ['finished', { current: working, status: 'finished' }],
    ['unknown', { current: working, status: 'bogus' }],
    ['status in Backlog', { current: backlog, status: 'started' }],
    ['status in Archive', { current: archive, status: 'ready' }],
    ['status after a move to Archive', { current: working, move: archive, status: 'started' }],
  ])('refuses %s with invalid-state', (_name, change) => {
    let error: unknown;
    try {
      nextStatus(started, change);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).problem).toBe('invalid-state');
  });
});
