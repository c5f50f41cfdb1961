import { streamEvent, type StreamEvent } from './event';
import { PartitionRing } from './ring';

const event = (offset: number, projectId = 1, payload = 'x'): StreamEvent =>
  streamEvent({ partition: 0, offset, projectId, type: 'story.updated', payload });
const offsets = (read: ReturnType<PartitionRing['after']>) =>
  read.kind === 'events' ? read.events.map((e) => e.offset) : read;

describe('PartitionRing', () => {
  it('covers the partition from its start offset; nothing yet, ahead, older', () => {
    const ring = new PartitionRing(0, 100, { maxEvents: 10, maxBytes: 1000 });
    expect([ring.coveredFrom, ring.head]).toEqual([100, 99]);
    expect(ring.after(99, 1)).toEqual({ kind: 'events', events: [], more: false });
    expect(ring.after(100, 1)).toEqual({ kind: 'ahead', head: 99 });
    expect(ring.after(98, 1)).toEqual({ kind: 'older', coveredFrom: 100 });
  });

  it("gives a project's events after an offset, in order, across holes in the offsets", () => {
    const ring = new PartitionRing(0, 0, { maxEvents: 10, maxBytes: 1000 });
    for (const [offset, project] of [
      [0, 1],
      [1, 2],
      [3, 1],
      [7, 1],
      [8, 2],
    ] as const) {
      expect(ring.append(event(offset, project))).toBe(true);
    }
    expect(offsets(ring.after(-1, 1))).toEqual([0, 3, 7]);
    expect(offsets(ring.after(0, 1))).toEqual([3, 7]);
    expect(offsets(ring.after(4, 1))).toEqual([7]);
    expect(offsets(ring.after(7, 1))).toEqual([]);
    expect(offsets(ring.after(-1, 2))).toEqual([1, 8]);
    expect(offsets(ring.after(-1, 3))).toEqual([]);
    expect(ring.after(8, 1)).toEqual({ kind: 'events', events: [], more: false });
    expect(ring.after(9, 1)).toEqual({ kind: 'ahead', head: 8 });
    expect(ring.after(-1, 1, 2)).toMatchObject({ kind: 'events', more: true });
    expect(offsets(ring.after(-1, 1, 2))).toEqual([0, 3]);
  });

  it('ignores redeliveries (an offset at or before the head)', () => {
    const ring = new PartitionRing(0, 5, { maxEvents: 10, maxBytes: 1000 });
    expect(ring.append(event(5))).toBe(true);
    expect(ring.append(event(6))).toBe(true);
    expect(ring.append(event(6))).toBe(false);
    expect(ring.append(event(2))).toBe(false);
    expect(ring.size).toBe(2);
    expect(() =>
      ring.append(streamEvent({ partition: 1, offset: 9, projectId: 1, type: 'story.moved', payload: '' })),
    ).toThrow(RangeError);
  });

  it('evicts the oldest beyond the count bound, and then sends older offsets to history', () => {
    const ring = new PartitionRing(0, 0, { maxEvents: 3, maxBytes: 1000 });
    for (let offset = 0; offset < 5; offset++) ring.append(event(offset, offset % 2));
    expect([ring.size, ring.coveredFrom, ring.head]).toEqual([3, 2, 4]);
    expect(offsets(ring.after(1, 0))).toEqual([2, 4]);
    expect(offsets(ring.after(1, 1))).toEqual([3]);
    expect(ring.after(0, 0)).toEqual({ kind: 'older', coveredFrom: 2 });
  });

  it('evicts the oldest beyond the byte bound (UTF-8 bytes), keeping the newest however large', () => {
    const ring = new PartitionRing(0, 0, { maxEvents: 100, maxBytes: 10 });
    ring.append(event(0, 1, 'aaaa'));
    ring.append(event(1, 1, 'éé')); // 4 bytes
    expect([ring.size, ring.bytes]).toEqual([2, 8]);
    ring.append(event(2, 1, 'bbb'));
    expect([ring.size, ring.bytes, ring.coveredFrom]).toEqual([2, 7, 1]);
    ring.append(event(3, 2, 'x'.repeat(50)));
    expect([ring.size, ring.bytes, ring.coveredFrom]).toEqual([1, 50, 3]);
    expect(offsets(ring.after(2, 2))).toEqual([3]);
    expect(offsets(ring.after(2, 1))).toEqual([]);
    ring.append(event(4, 1, 'y'));
    expect([ring.size, ring.bytes, ring.coveredFrom]).toEqual([1, 1, 4]);
  });

  it('stays exact across many wrap-arounds of its buffers', () => {
    const ring = new PartitionRing(0, 0, { maxEvents: 37, maxBytes: 1e9 });
    for (let offset = 0; offset < 5000; offset += 2) {
      ring.append(event(offset, (offset / 2) % 3));
      const own = ring.after(Math.max(-1, offset - 20), 0);
      const expected = [];
      for (let o = Math.max(0, offset - 18); o <= offset; o += 2) if ((o / 2) % 3 === 0) expected.push(o);
      expect(offsets(own)).toEqual(expected);
    }
    expect(ring.size).toBe(37);
  });
});
