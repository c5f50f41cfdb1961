import Redis, { type Command, type RedisOptions } from 'ioredis';
import type { Logger } from '@flowboard/service-kit';

export interface RedisSettings {
  /** A command not answered within this fails (the request goes on without Redis for it). */
  commandTimeoutMs: number;
  /** This many commands in a row timing out mark Redis hung: the connection is dropped (see createRedis). */
  timeoutsToDown: number;
}

/** What ioredis rejects a command with when its commandTimeout passes. */
const TIMED_OUT = 'Command timed out';

/**
 * ioredis, watching its commands' outcomes: `timeoutsToDown` timeouts in a row with no answer in between mean the
 * server is hung (a paused process, a silent network), not slow, and the connection is dropped.
 */
class WatchedRedis extends Redis {
  onHung: () => void = () => {};
  private timeoutsInARow = 0;

  constructor(
    url: string,
    options: RedisOptions,
    private readonly timeoutsToDown: number,
  ) {
    super(url, options);
  }

  private verifying = false;

  /**
   * Timeouts in a row may also come from this process: an event loop blocked past the command timeout (a saturated
   * machine) lets every command in flight time out at once, answers and all. So one more question decides, asked
   * now: a PING not answered within the command timeout either means the server is hung.
   */
  private verify(): void {
    if (this.verifying) return;
    this.verifying = true;
    this.ping().then(
      () => {
        this.verifying = false;
        this.timeoutsInARow = 0;
      },
      (err: unknown) => {
        this.verifying = false;
        if (err instanceof Error && err.message === TIMED_OUT && this.status === 'ready') {
          this.timeoutsInARow = 0;
          this.onHung();
        }
      },
    );
  }

  override sendCommand(command: Command, stream?: Parameters<Redis['sendCommand']>[1]): unknown {
    const sent = super.sendCommand(command, stream);
    command.promise.then(
      () => {
        this.timeoutsInARow = 0;
      },
      (err: unknown) => {
        if (!(err instanceof Error)) return;
        if (err.message !== TIMED_OUT) {
          // An error Redis answered (not one of the connection) proves it answers.
          if (err.name === 'ReplyError') this.timeoutsInARow = 0;
          return;
        }
        this.timeoutsInARow += 1;
        if (this.timeoutsInARow >= this.timeoutsToDown && this.status === 'ready') this.verify();
      },
    );
    return sent;
  }
}

/**
 * The gateway's one Redis connection. Redis is a cache here (design.md, "Failure isolation"): down or hung, the
 * gateway serves without it, at normal latency, and says so on `flowboard_dependency_up{dependency="redis"}`.
 *
 * - **Down** (connection refused, or lost): ioredis reconnects with back-off, and with no offline queue every
 *   command fails at once meanwhile: caches are bypassed, rate limits count in memory, Idempotency-Key requests
 *   answer 503 (they can't be made safe).
 * - **Hung** (the TCP connection stays open and nothing answers: a paused process): each command would wait its
 *   `commandTimeout`, and a request makes several in a row. So `timeoutsToDown` timeouts in a row, confirmed by a
 *   PING that times out too (not a stalled event loop of ours), drop the connection (`disconnect(true)`; the socket is destroyed after `disconnectTimeout` if the server never closes
 *   its side), which makes it the case above: commands fail at once. ioredis's reconnection is the probe that
 *   brings it back: a new connection is used only after its ready check (INFO, within the command timeout)
 *   answered, and a hung server's doesn't, so it keeps retrying until the server answers again.
 * - Coming back (`ready`), the invalidations made meanwhile are made again first (`onReady`).
 */
export function createRedis(url: string, settings: RedisSettings, logger: Logger): Redis {
  const redis = new WatchedRedis(
    url,
    {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      commandTimeout: settings.commandTimeoutMs,
      disconnectTimeout: settings.commandTimeoutMs,
      // A reconnection attempt every 50 ms more, up to one a second: a Redis back after a pause is used within a
      // second, and a Redis down costs one connection attempt a second.
      retryStrategy: (times) => Math.min(times * 50, 1_000),
      // Commands issued within one turn of the event loop (by every request in flight) go out as one write and
      // come back as one read: under load, most of a request's Redis calls share their round trip with others'.
      enableAutoPipelining: true,
    },
    settings.timeoutsToDown,
  );
  redis.onHung = () => {
    logger.warn(
      { timeouts: settings.timeoutsToDown, commandTimeoutMs: settings.commandTimeoutMs },
      'redis not answering: connection dropped, serving without it until it answers again',
    );
    redis.disconnect(true);
  };
  let lastError = '';
  redis.on('error', (err: Error) => {
    if (err.message !== lastError) logger.warn({ err: { message: err.message } }, 'redis error');
    lastError = err.message;
  });
  redis.on('ready', () => {
    if (lastError) logger.info('redis available again');
    lastError = '';
  });
  return redis;
}
