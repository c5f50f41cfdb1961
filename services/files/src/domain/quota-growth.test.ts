import { decideGrowth, type AccountLedger, type ReservationState } from './quota-growth';

const ledger = (
  usedBytes: number,
  reservations: Array<[id: number, bytes: number, waitingFor?: number]>,
  limitBytes = 100,
): AccountLedger => {
  const list: ReservationState[] = reservations.map(([id, bytes, waitingFor]) => ({ id, bytes, waitingFor }));
  return {
    limitBytes,
    usedBytes,
    reservedBytes: list.reduce((sum, r) => sum + r.bytes, 0),
    reservations: list,
  };
};

describe('decideGrowth', () => {
  it('grants the step when it fits, else the room that is left (at least what is missing)', () => {
    expect(decideGrowth(ledger(0, [[1, 0]]), 1, 10, 50)).toEqual({ kind: 'grant', bytes: 50, preempt: [] });
    expect(decideGrowth(ledger(60, [[1, 0]]), 1, 10, 50)).toEqual({ kind: 'grant', bytes: 40, preempt: [] });
    expect(decideGrowth(ledger(90, [[1, 0]]), 1, 10, 50)).toEqual({ kind: 'grant', bytes: 10, preempt: [] });
  });

  it('refuses only when the upload’s own bytes do not fit beside what is stored', () => {
    expect(decideGrowth(ledger(90, [[1, 5]]), 1, 6, 6)).toEqual({ kind: 'refuse' });
    // Full because of another upload in flight: not a refusal, that one may still fail.
    expect(
      decideGrowth(
        ledger(0, [
          [1, 60],
          [2, 40],
        ]),
        2,
        1,
        1,
      ),
    ).toEqual({ kind: 'wait', preempt: [] });
  });

  it('waits while another upload streams (it may give back the headers its bound counted)', () => {
    const l = ledger(5, [
      [1, 40], // streaming, holding its up-front bound
      [2, 50],
      [3, 5],
    ]);
    expect(decideGrowth(l, 3, 10, 10)).toEqual({ kind: 'wait', preempt: [] });
  });

  it('serves the oldest waiter first: a younger one waits even when it would fit', () => {
    const l = ledger(0, [
      [1, 50, 5],
      [2, 40],
      [3, 5],
    ]);
    expect(decideGrowth(l, 2, 5, 5)).toEqual({ kind: 'wait', preempt: [] });
    expect(
      decideGrowth(
        ledger(0, [
          [1, 50],
          [2, 40],
        ]),
        2,
        5,
        5,
      ),
    ).toEqual({
      kind: 'grant',
      bytes: 5,
      preempt: [],
    });
  });

  it('the newest waiting uploads give their room to the oldest waiting one, only as much as it needs', () => {
    const l = ledger(10, [
      [1, 30, 20],
      [2, 20, 20],
      [3, 25, 20],
      [4, 15],
    ]);
    // 4 asks too: 1 needs 20 and room is 0 → 4 (15) and 3 (25) give theirs back.
    expect(decideGrowth(l, 4, 20, 20)).toEqual({ kind: 'wait', preempt: [4, 3] });
    // Also while another streams (1 streams here, 2 waits first in line).
    expect(
      decideGrowth(
        ledger(5, [
          [1, 40],
          [2, 50, 10],
          [3, 5],
        ]),
        3,
        10,
        10,
      ),
    ).toEqual({ kind: 'wait', preempt: [3] });
  });

  it('the oldest waiting, asking, takes the room of the newest waiting ones itself, even while others stream', () => {
    const l = ledger(10, [
      [1, 30, 20],
      [2, 20, 20],
      [3, 25, 20],
      [4, 15],
    ]);
    expect(decideGrowth(l, 1, 20, 20)).toEqual({ kind: 'grant', bytes: 20, preempt: [3] });
  });

  it('the oldest, asking when everyone waits, takes the room from the newest holders itself', () => {
    const l = ledger(10, [
      [1, 30],
      [2, 20, 20],
      [3, 25, 20],
      [4, 15, 20],
    ]);
    expect(decideGrowth(l, 1, 20, 40)).toEqual({ kind: 'grant', bytes: 40, preempt: [4, 3] });
  });

  it('skips holders busy in a transaction of their own and those holding nothing', () => {
    const l = ledger(35, [
      [1, 30],
      [2, 20, 20],
      [3, 0, 50],
      [4, 15, 20],
    ]);
    const busy = { ...l, reservations: l.reservations.map((r) => (r.id === 4 ? { ...r, busy: true } : r)) };
    expect(decideGrowth(busy, 1, 20, 20)).toEqual({ kind: 'grant', bytes: 20, preempt: [2] });
    expect(decideGrowth(l, 1, 20, 20)).toEqual({ kind: 'grant', bytes: 20, preempt: [4, 2] });
  });

  it('a waiter finding the oldest fits now leaves it to be served', () => {
    const l = ledger(0, [
      [1, 10, 20],
      [2, 60, 20],
    ]);
    expect(decideGrowth(l, 2, 20, 20)).toEqual({ kind: 'wait', preempt: [] });
  });
});
