import { DEFAULT_PHASES } from './board';

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
