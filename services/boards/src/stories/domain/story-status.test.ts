import { DomainError } from '@flowboard/service-kit';
import {
  nextStatus,
  statusForPhasePosition,
  stepTypeForStatus,
  type StatusChange,
  type StatusState,
} from './story-status';

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

describe('statusForPhasePosition', () => {
  it.each([
    [0, 4, 'planned'],
    [1, 4, 'started'], // even a phase named "Ready"
    [2, 4, 'started'],
    [3, 4, 'started'],
    [4, 4, 'finished'],
    [0, 1, 'planned'],
    [1, 1, 'finished'],
    [6, 9, 'started'],
  ] as const)('position %i of 0..%i → %s', (position, last, status) => {
    expect(statusForPhasePosition(position, last)).toBe(status);
  });

  it('refuses positions outside the board', () => {
    expect(() => statusForPhasePosition(5, 4)).toThrow(RangeError);
    expect(() => statusForPhasePosition(-1, 4)).toThrow(RangeError);
    expect(() => statusForPhasePosition(1.5, 4)).toThrow(RangeError);
  });
});

describe('stepTypeForStatus', () => {
  it.each([
    ['planned', 'backlog'],
    ['started', 'working'],
    ['ready', 'ready'],
    ['blocked', 'blocked'],
    ['finished', 'archive'],
  ] as const)('%s → %s', (status, type) => {
    expect(stepTypeForStatus(status)).toBe(type);
  });
});
