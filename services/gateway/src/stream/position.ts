/**
 * A position in the change stream: the place of one event in the topic's log, (partition, offset), written as an
 * opaque, URL-safe string (an SSE `id:`, a `Last-Event-ID`, an `?after=`). `offset` is the offset of the last event
 * the client has; the stream continues with the project's events after it. A project's events are all on one
 * partition (keyed by its id), so two positions of one project compare by offset alone.
 *
 * The text: `1-<partition>-<offset + 1>`, both numbers in lowercase base 36 without leading zeros. The leading `1`
 * is the format's version, so the format can change (a topic epoch, say) while old positions still decode. The
 * offset is written plus one, so "before the partition's first event" (offset -1) needs no minus sign. Decoding is
 * strict: only the exact text `encodePosition` makes is accepted, anything else is malformed (the route: 400).
 */
export interface Position {
  readonly partition: number;
  /** The offset of the last event before the position; -1 before the partition's first event. */
  readonly offset: number;
}

const VERSION = '1';
/** Longer than any position we write (6 digits of partition, 11 of offset): refused before any parsing. */
const MAX_LENGTH = 32;
const DIGITS = /^(0|[1-9a-z][0-9a-z]*)$/;
/** Kafka's partition ids are int32. */
const MAX_PARTITION = 0x7fffffff;

export function encodePosition(position: Position): string {
  const { partition, offset } = position;
  if (!Number.isSafeInteger(partition) || partition < 0 || partition > MAX_PARTITION) {
    throw new RangeError(`not a partition: ${partition}`);
  }
  if (!Number.isSafeInteger(offset) || offset < -1 || offset + 1 > Number.MAX_SAFE_INTEGER) {
    throw new RangeError(`not an offset: ${offset}`);
  }
  return `${VERSION}-${partition.toString(36)}-${(offset + 1).toString(36)}`;
}

/** The position a text names, or undefined when it is not one `encodePosition` could have made. */
export function decodePosition(text: string): Position | undefined {
  if (typeof text !== 'string' || text.length > MAX_LENGTH) return undefined;
  const parts = text.split('-');
  if (parts.length !== 3 || parts[0] !== VERSION) return undefined;
  const partition = parseDigits(parts[1]!);
  const next = parseDigits(parts[2]!);
  if (partition === undefined || next === undefined || partition > MAX_PARTITION) return undefined;
  return { partition, offset: next - 1 };
}

function parseDigits(digits: string): number | undefined {
  if (!DIGITS.test(digits)) return undefined;
  const value = parseInt(digits, 36);
  return Number.isSafeInteger(value) && value.toString(36) === digits ? value : undefined;
}

/** The position of an event: the stream continues after it. */
export const positionOf = (partition: number, offset: number): Position => ({ partition, offset });

/**
 * The position just before offset `offset` of a partition: a stream from there starts with the event at `offset`
 * (or the first one after it). `from=now` is the position before the partition's next offset.
 */
export const positionBefore = (partition: number, offset: number): Position => ({
  partition,
  offset: offset - 1,
});

/** Orders two positions of one partition (one project's); positions of different partitions do not compare. */
export function comparePositions(a: Position, b: Position): number {
  if (a.partition !== b.partition) {
    throw new RangeError(`positions of partitions ${a.partition} and ${b.partition} do not compare`);
  }
  return Math.sign(a.offset - b.offset);
}
