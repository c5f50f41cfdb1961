import type { Logger } from '@flowboard/service-kit';
import type Redis from 'ioredis';
import { ClockCounters } from './clock-counters';
import type { PendingInvalidations } from './pending-invalidations';

/** A board left alone this long loses its counter; the next read starts a new one from the clock. */
const IDLE_SECONDS = 86_400;

const versionKey = (projectId: number) => `gateway:board-version:{${projectId}}`;

/**
 * One counter per project's board in Redis, shared by every gateway replica: every change made through the API
 * under `/projects/{id}` advances it before its response is sent, so a response cached under the counter's old
 * value is never served to a request that read the new one. Values are strings compared for equality, and
 * never repeat (a lost counter starts again from the server clock).
 */
export class BoardVersions {
  private readonly counters: ClockCounters;

  constructor(
    private readonly redis: Redis,
    private readonly logger: Logger,
    private readonly pending?: PendingInvalidations,
  ) {
    this.counters = new ClockCounters(redis, IDLE_SECONDS);
  }

  /**
   * The version as Redis holds it, creating nothing: read before the caller is authenticated (in the same
   * pipelined write as the request's other reads), so it must not let anyone make keys. Undefined when there
   * is none yet or Redis can't be read; never rejects.
   */
  peek(projectId: number): Promise<string | undefined> {
    return this.redis.get(versionKey(projectId)).then(
      (value) => value ?? undefined,
      () => undefined,
    );
  }

  /** The version, started from the clock if the board has none: only after the caller's access was checked. */
  start(projectId: number): Promise<string | undefined> {
    return this.counters.read(versionKey(projectId)).catch(() => undefined);
  }

  /** After anything that may have changed the board (whether it succeeded or not); never rejects. */
  async advance(projectId: number): Promise<void> {
    const key = versionKey(projectId);
    try {
      await this.counters.advance(key);
    } catch (err) {
      this.logger.warn(
        { projectId, err: { message: err instanceof Error ? err.message : String(err) } },
        'board version not advanced; advanced when Redis answers (replicas that still reach it may serve cached reads of this board until they expire)',
      );
      this.pending?.add(`advance:${key}`, () => this.counters.advance(key));
    }
  }
}
