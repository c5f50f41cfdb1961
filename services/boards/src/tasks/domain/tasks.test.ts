import { DomainError } from '@flowboard/service-kit';
import { applyTaskStatus, parseTaskStatus, parseTaskText, validateTaskOrder } from './tasks';

const now = new Date('2024-05-01T10:00:00Z');
const open = { status: 'incomplete' as const, finishedAt: null, finishedBy: null };

describe('task rules', () => {
  it('completing sets the finish time and the caller as finisher', () => {
    expect(applyTaskStatus(open, 'complete', 7, now)).toEqual({
      status: 'complete',
      finishedAt: now,
      finishedBy: 7,
    });
  });

  it('reopening clears both', () => {
    const done = { status: 'complete' as const, finishedAt: now, finishedBy: 7 };
    expect(applyTaskStatus(done, 'incomplete', 9, new Date())).toEqual(open);
  });

  it('the same status changes nothing (the first finisher stays)', () => {
    const done = { status: 'complete' as const, finishedAt: now, finishedBy: 7 };
    expect(applyTaskStatus(done, 'complete', 9, new Date())).toBe(done);
  });

  it('parses status and text', () => {
    expect(parseTaskStatus('')).toBe('incomplete');
    expect(parseTaskStatus('Complete')).toBe('complete');
    expect(() => parseTaskStatus('done')).toThrow(DomainError);
    expect(() => parseTaskText('  ')).toThrow(/Missing text/);
    expect(() => parseTaskText('x'.repeat(2001))).toThrow(/2000/);
    expect(parseTaskText('x'.repeat(2000))).toHaveLength(2000);
  });

  it('a reorder lists every task exactly once', () => {
    expect(() => validateTaskOrder([1, 2, 3], [3, 1, 2])).not.toThrow();
    expect(() => validateTaskOrder([1, 2, 3], [3, 1])).toThrow(/missing 2/);
    expect(() => validateTaskOrder([1, 2], [1, 2, 2])).toThrow(/twice/);
    expect(() => validateTaskOrder([1, 2], [1, 9])).toThrow(/9/);
    expect(() => validateTaskOrder([], [])).not.toThrow();
  });
});
