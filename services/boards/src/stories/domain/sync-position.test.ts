import { formatSyncPosition, parseSyncPosition } from './sync-position';

describe('sync positions', () => {
  it('round-trips a position with transactions in progress and without', () => {
    for (const text of ['7713351729297158223:1767:1790:1767,1770', '42:1:1:']) {
      expect(formatSyncPosition(parseSyncPosition(text))).toBe(text);
    }
  });

  it.each([
    ['not one', 'abc'],
    ['a snapshot alone', '1767:1790:'],
    ['xmin after xmax', '42:9:5:'],
    ['in progress outside the window', '42:5:9:9'],
    ['in progress out of order', '42:5:9:7,6'],
    ['xmin 0', '42:0:0:'],
    ['system 0', '0:5:5:'],
    ['beyond int8', '42:5:99999999999999999999:'],
  ])('refuses %s as invalid-parameter, naming what is wrong', (_, text) => {
    expect(() => parseSyncPosition(text)).toThrow(
      expect.objectContaining({ kind: 'InvalidArgument', problem: 'invalid-parameter' }),
    );
  });
});
