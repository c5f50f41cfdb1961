import { Partitioners } from 'kafkajs';
import { murmur2, partitionOf } from './partition';

/** kafkajs' own DefaultPartitioner, as the services' publisher uses it. */
function kafkajsPartition(key: string, partitionCount: number): number {
  const partitioner = Partitioners.DefaultPartitioner();
  const partitionMetadata = Array.from({ length: partitionCount }, (_, partitionId) => ({
    partitionId,
    leader: 0,
    partitionErrorCode: 0,
    replicas: [0],
    isr: [0],
  }));
  return partitioner({
    topic: 'flowboard.resource-changed.v1',
    partitionMetadata,
    message: { key, value: null },
  });
}

describe('partitionOf', () => {
  it('matches known murmur2 vectors (Kafka Java client)', () => {
    // From Kafka's UtilsTest.testMurmur2.
    const vectors: [string, number][] = [
      ['21', -973932308],
      ['foobar', -790332482],
      ['a-little-bit-long-string', -985981536],
      ['a-little-bit-longer-string', -1486304829],
      ['lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8', -58897971],
      ['abc', 479470107],
    ];
    for (const [key, hash] of vectors) expect(murmur2(Buffer.from(key))).toBe(hash);
  });

  it.each([1, 2, 3, 6, 12, 50, 97])('matches kafkajs for project ids 1..3000 on %d partitions', (count) => {
    for (let projectId = 1; projectId <= 3000; projectId++) {
      expect(partitionOf(projectId, count)).toBe(kafkajsPartition(String(projectId), count));
    }
  });

  it('matches kafkajs for large ids and every tail length', () => {
    for (const projectId of [2 ** 31 - 1, 2 ** 31, 2 ** 53 - 1, 123456789012, 7, 77, 777, 7777]) {
      expect(partitionOf(projectId, 12)).toBe(kafkajsPartition(String(projectId), 12));
    }
  });

  it('refuses a partition count below one', () => {
    expect(() => partitionOf(1, 0)).toThrow(RangeError);
  });
});
