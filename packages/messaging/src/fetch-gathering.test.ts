import { EventEmitter } from 'node:events';
import { FetchGathering } from './fetch-gathering';

/** A consumer's event surface: FETCH_START is all FetchGathering listens to. */
function fakeConsumer() {
  const emitter = new EventEmitter();
  const events = { FETCH_START: 'consumer.fetch_start' } as const;
  const consumer = {
    events,
    on: (event: string, listener: () => void) => {
      emitter.on(event, listener);
      return () => emitter.off(event, listener);
    },
  };
  return { consumer: consumer as never, fetchStarts: () => emitter.emit(events.FETCH_START) };
}

const drained = { offsetLag: () => '0' };
const behind = { offsetLag: () => '12' };

describe('FetchGathering', () => {
  it('waits, after a batch that emptied its partition, until maxWaitMs after the fetch began', () => {
    let now = 1_000;
    const { consumer, fetchStarts } = fakeConsumer();
    const gathering = new FetchGathering(consumer, { maxWaitMs: 25 }, () => now);
    fetchStarts();
    now += 10; // the fetch answered, the batch was handled
    expect(gathering.delayAfter(drained)).toBe(15);
    now += 40; // handling took longer than the wait: fetch again at once
    expect(gathering.delayAfter(drained)).toBe(0);
  });

  it('fetches again at once while the partition has more to read', () => {
    let now = 1_000;
    const { consumer, fetchStarts } = fakeConsumer();
    const gathering = new FetchGathering(consumer, { maxWaitMs: 25 }, () => now);
    fetchStarts();
    now += 1;
    expect(gathering.delayAfter(behind)).toBe(0);
  });

  it('never waits without a wait, or with 0', () => {
    const { consumer, fetchStarts } = fakeConsumer();
    for (const wait of [undefined, { maxWaitMs: 0 }]) {
      const gathering = new FetchGathering(consumer, wait, () => 1_000);
      fetchStarts();
      expect(gathering.delayAfter(drained)).toBe(0);
    }
  });

  it('resolves afterBatch once the delay is over', async () => {
    const { consumer, fetchStarts } = fakeConsumer();
    const gathering = new FetchGathering(consumer, { maxWaitMs: 30 });
    fetchStarts();
    const started = Date.now();
    await gathering.afterBatch(drained);
    expect(Date.now() - started).toBeGreaterThanOrEqual(25);
  });
});
