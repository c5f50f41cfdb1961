import { createRequire } from 'node:module';
import { fixKafkajsIdleLoop, scheduleCheckPendingRequests } from './kafkajs-idle-fix';

/** A request queue's scheduling state, as kafkajs's RequestQueue holds it. */
function queue(state: { pending?: unknown[]; throttledUntil?: number } = {}) {
  return {
    pending: state.pending ?? [],
    throttledUntil: state.throttledUntil ?? -1,
    throttleCheckTimeoutId: null as NodeJS.Timeout | null,
    checkPendingRequests: jest.fn(),
  };
}

describe('kafkajs idle loop fix', () => {
  beforeEach(() => jest.useFakeTimers({ now: 1_000_000 }));
  afterEach(() => jest.useRealTimers());

  it('arms no timer when nothing is queued and nothing is throttled (the original looped every 1 ms)', () => {
    const q = queue();
    scheduleCheckPendingRequests.call(q);
    expect(q.throttleCheckTimeoutId).toBeNull();
    expect(jest.getTimerCount()).toBe(0);
  });

  it('checks queued requests after kafkajs’s 10 ms interval, once', () => {
    const q = queue({ pending: [{}] });
    scheduleCheckPendingRequests.call(q);
    scheduleCheckPendingRequests.call(q); // already armed: no second timer
    expect(jest.getTimerCount()).toBe(1);
    jest.advanceTimersByTime(9);
    expect(q.checkPendingRequests).not.toHaveBeenCalled();
    jest.advanceTimersByTime(1);
    expect(q.checkPendingRequests).toHaveBeenCalledTimes(1);
    expect(q.throttleCheckTimeoutId).toBeNull();
  });

  it('while the broker throttles, checks when the throttle ends', () => {
    const q = queue({ pending: [{}], throttledUntil: 1_000_250 });
    scheduleCheckPendingRequests.call(q);
    jest.advanceTimersByTime(249);
    expect(q.checkPendingRequests).not.toHaveBeenCalled();
    jest.advanceTimersByTime(1);
    expect(q.checkPendingRequests).toHaveBeenCalledTimes(1);
  });

  it('is installed into the kafkajs release it was written for', () => {
    expect(fixKafkajsIdleLoop()).toBe(true);
    const load = createRequire(__filename);
    const RequestQueue = load('kafkajs/src/network/requestQueue') as {
      prototype: { scheduleCheckPendingRequests: unknown };
    };
    expect(RequestQueue.prototype.scheduleCheckPendingRequests).toBe(scheduleCheckPendingRequests);
  });
});
