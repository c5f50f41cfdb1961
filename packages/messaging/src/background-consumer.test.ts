import type { Kafka } from 'kafkajs';
import { createLogger } from '@flowboard/service-kit';
import { BackgroundConsumer, type GroupMember } from './background-consumer';

/** A group member whose start and end the test decides. */
class StubMember implements GroupMember {
  ready = false;
  stops = 0;
  private endWith!: (error: unknown) => void;
  readonly ended = new Promise<unknown>((resolve) => (this.endWith = resolve));

  constructor(private readonly startFailure?: Error) {}

  start(): Promise<void> {
    if (this.startFailure) return Promise.reject(this.startFailure);
    this.ready = true;
    return Promise.resolve();
  }
  stop(): Promise<void> {
    this.stops++;
    this.ready = false;
    this.endWith(undefined);
    return Promise.resolve();
  }
  isReady(): boolean {
    return this.ready;
  }
  retrying(): ReturnType<GroupMember['retrying']> {
    return [];
  }
  /** What kafkajs does when it crashes and will not restart. */
  giveUp(error: Error): void {
    this.ready = false;
    this.endWith(error);
  }
}

const until = async (condition: () => boolean): Promise<void> => {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((r) => setTimeout(r, 5));
  if (!condition()) throw new Error('condition not met within 1 s');
};

function setup(...members: StubMember[]) {
  const made: StubMember[] = [];
  const consumer = new BackgroundConsumer({
    kafka: {} as Kafka,
    groupId: 'g',
    topics: ['t'],
    logger: createLogger('test', 'silent'),
    handle: () => Promise.resolve(),
    joinRetryMs: { initial: 10, max: 40 },
    createMember: () => {
      const member = members.shift() ?? new StubMember();
      made.push(member);
      return member;
    },
  });
  return { consumer, made };
}

describe('BackgroundConsumer', () => {
  it('keeps trying to join until a member starts', async () => {
    const down = new Error('no broker');
    const { consumer, made } = setup(new StubMember(down), new StubMember(down), new StubMember());
    consumer.start();
    await until(() => consumer.isReady());
    expect(made).toHaveLength(3);
    expect(made[0]!.stops).toBe(1); // a failed start is cleaned up
    await consumer.stop();
  });

  it('replaces a member kafkajs gave up on with a new one', async () => {
    const { consumer, made } = setup();
    consumer.start();
    await until(() => consumer.isReady());
    made[0]!.giveUp(new Error('Failed to find group coordinator'));
    expect(consumer.isReady()).toBe(false);
    await until(() => made.length === 2 && consumer.isReady());
    expect(made[0]!.stops).toBe(1);
    await consumer.stop();
  });

  it('stops for good: no member after stop(), even one that gave up meanwhile', async () => {
    const { consumer, made } = setup();
    consumer.start();
    await until(() => consumer.isReady());
    await consumer.stop();
    expect(consumer.isReady()).toBe(false);
    made[0]!.giveUp(new Error('late crash'));
    await new Promise((r) => setTimeout(r, 60));
    expect(made).toHaveLength(1);
  });

  it('stop() during the wait between attempts ends it at once', async () => {
    const { consumer, made } = setup(new StubMember(new Error('no broker')));
    consumer.start();
    await until(() => made.length === 1 && made[0]!.stops === 1);
    await consumer.stop();
    await new Promise((r) => setTimeout(r, 60));
    expect(made).toHaveLength(1);
  });
});
