/**
 * The partition of a project's events. The services publish `flowboard.resource-changed.v1` keyed by the project id
 * (`String(projectId)`) through kafkajs' DefaultPartitioner (packages/messaging/src/publisher.ts): murmur2 of the
 * key's UTF-8 bytes, as Java's client 0.10.2 has it, made positive with `& 0x7fffffff`, modulo the partition count.
 * This is the same function in 32-bit arithmetic (kafkajs computes it with Longs and keeps the low 32 bits, which
 * depend on the operands' low 32 bits only); partition.test.ts checks it against kafkajs itself.
 */
export function partitionOf(projectId: number, partitionCount: number): number {
  if (!Number.isInteger(partitionCount) || partitionCount < 1) {
    throw new RangeError(`not a partition count: ${partitionCount}`);
  }
  return (murmur2(Buffer.from(String(projectId), 'utf8')) & 0x7fffffff) % partitionCount;
}

const SEED = 0x9747b28c;
const M = 0x5bd1e995;
const R = 24;

/** Kafka's murmur2 (org.apache.kafka.common.utils.Utils.murmur2): a signed 32-bit hash. */
export function murmur2(data: Uint8Array): number {
  const length = data.length;
  let h = SEED ^ length;
  const whole = length & ~3;
  for (let i = 0; i < whole; i += 4) {
    let k = data[i]! | (data[i + 1]! << 8) | (data[i + 2]! << 16) | (data[i + 3]! << 24);
    k = Math.imul(k, M);
    k ^= k >>> R;
    k = Math.imul(k, M);
    h = Math.imul(h, M) ^ k;
  }
  // The last one to three bytes (Java's switch falls through from case 3 to case 1).
  const tail = length & 3;
  if (tail > 0) {
    if (tail === 3) h ^= data[whole + 2]! << 16;
    if (tail >= 2) h ^= data[whole + 1]! << 8;
    h ^= data[whole]!;
    h = Math.imul(h, M);
  }
  h ^= h >>> 13;
  h = Math.imul(h, M);
  h ^= h >>> 15;
  return h | 0;
}
