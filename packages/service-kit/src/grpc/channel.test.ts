import * as grpc from '@grpc/grpc-js';
import { ReconnectingChannel } from './channel';

const { IDLE, CONNECTING, READY, SHUTDOWN } = grpc.connectivityState;

/** An inner channel whose state the test sets, with grpc-js' watch semantics (called once on the next change). */
class FakeChannel {
  state: grpc.connectivityState = IDLE;
  calls = 0;
  private watchers: Array<() => void> = [];
  getConnectivityState(tryToConnect: boolean) {
    if (tryToConnect && this.state === IDLE) this.set(CONNECTING);
    return this.state;
  }
  watchConnectivityState(_state: grpc.connectivityState, _deadline: number, callback: () => void) {
    this.watchers.push(callback);
  }
  set(state: grpc.connectivityState) {
    this.state = state;
    for (const watcher of this.watchers.splice(0)) watcher();
  }
  close() {
    this.set(SHUTDOWN);
  }
  createCall() {
    this.calls += 1;
    return {} as ReturnType<grpc.ChannelInterface['createCall']>;
  }
  getTarget() {
    return 'fake';
  }
  getChannelzRef() {
    return {} as ReturnType<grpc.ChannelInterface['getChannelzRef']>;
  }
}

function setup() {
  const made: FakeChannel[] = [];
  const channel = new ReconnectingChannel(() => {
    const inner = new FakeChannel();
    made.push(inner);
    return inner as unknown as grpc.ChannelInterface;
  }, 2_000);
  const call = () => channel.createCall('/s/m', Infinity, undefined, null, undefined);
  return { channel, made, call };
}

beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

describe('ReconnectingChannel', () => {
  it('keeps a channel that connects within the timeout', () => {
    const { channel, made, call } = setup();
    made[0]!.set(CONNECTING);
    jest.advanceTimersByTime(1_500);
    made[0]!.set(READY);
    jest.advanceTimersByTime(10_000);
    call();
    expect(made).toHaveLength(1);
    expect(made[0]!.calls).toBe(1);
    expect(channel.replacements).toBe(0);
  });

  it('gives up an attempt still under way after the timeout: new calls go to a fresh channel that connects at once', () => {
    const { channel, made, call } = setup();
    made[0]!.set(CONNECTING);
    jest.advanceTimersByTime(2_000);
    expect(made).toHaveLength(2);
    expect(made[1]!.state).toBe(CONNECTING);
    call();
    expect(made[1]!.calls).toBe(1);
    expect(made[0]!.state).toBe(CONNECTING); // kept for the calls it was given...
    jest.advanceTimersByTime(60_000);
    expect(made[0]!.state).toBe(SHUTDOWN); // ...then closed
    expect(channel.replacements).toBeGreaterThanOrEqual(1);
  });

  it('uses an attempt given up too soon if it connects first, and retires the newer one instead', () => {
    const { made, call } = setup();
    made[0]!.set(CONNECTING);
    jest.advanceTimersByTime(2_000); // made[1] connecting now
    made[0]!.set(READY); // the slow one made it
    call();
    expect(made[0]!.calls).toBe(1);
    expect(made[1]!.calls).toBe(0);
    jest.advanceTimersByTime(60_000);
    expect(made[1]!.state).toBe(SHUTDOWN);
    expect(made[0]!.state).toBe(READY);
    expect(made).toHaveLength(2); // READY: no further replacement
  });

  it('close() closes the channels still draining too', () => {
    const { channel, made } = setup();
    made[0]!.set(CONNECTING);
    jest.advanceTimersByTime(2_000);
    channel.close();
    expect(made.map((m) => m.state)).toEqual([SHUTDOWN, SHUTDOWN]);
  });
});
