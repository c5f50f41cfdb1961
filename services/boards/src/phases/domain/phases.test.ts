import { DEFAULT_PHASES, statusForPhasePosition, stepTypeForStatus } from './phases';

describe('default phases', () => {
  it('are Backlog, Ready, Working, Complete, Archive with the original descriptions', () => {
    expect(DEFAULT_PHASES).toEqual([
      { name: 'Backlog', description: 'Stories that will be worked on someday' },
      { name: 'Ready', description: 'Stories that are ready to be worked on' },
      { name: 'Working', description: 'Stories that are currently being worked on' },
      { name: 'Complete', description: 'Stories that have been completed' },
      { name: 'Archive', description: 'Stories that are history' },
    ]);
  });

  it('cannot be changed at run time', () => {
    expect(Object.isFrozen(DEFAULT_PHASES)).toBe(true);
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
