import type Redis from 'ioredis';

// A missing counter starts from the server's clock in microseconds, beyond any value it could have reached by
// counting (changes are far rarer than one a microsecond). ARGV[1]: seconds until an idle counter vanishes, 0
// for never. Both scripts answer the value as Redis holds it (a string): Lua's tostring() prints 16-digit
// numbers as `1.7639391234568e+15`, which is not the value.
const START_IF_MISSING = `
if not redis.call('GET', KEYS[1]) then
  local now = redis.call('TIME')
  redis.call('SET', KEYS[1], now[1] .. string.format('%06d', tonumber(now[2])))
  if ARGV[1] ~= '0' then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
end`;

const READ = `${START_IF_MISSING}
return redis.call('GET', KEYS[1])`;

const ADVANCE = `${START_IF_MISSING}
redis.call('INCR', KEYS[1])
if ARGV[1] ~= '0' then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return redis.call('GET', KEYS[1])`;

interface CounterCommands {
  gatewayReadCounter(key: string, idleSeconds: number): Promise<string>;
  gatewayAdvanceCounter(key: string, idleSeconds: number): Promise<string>;
}

/**
 * Counters in Redis that never repeat a value they held before, even after Redis lost them (a restart without
 * persistence, an expiry): what the gateway's in-process caches are valid under (the cache epoch, each board's
 * version). Values are strings, compared for equality.
 */
export class ClockCounters {
  private readonly redis: Redis & CounterCommands;

  /** `idleSeconds`: how long a counter nobody advances lives; 0 for ever. */
  constructor(
    redis: Redis,
    private readonly idleSeconds = 0,
  ) {
    redis.defineCommand('gatewayReadCounter', { numberOfKeys: 1, lua: READ });
    redis.defineCommand('gatewayAdvanceCounter', { numberOfKeys: 1, lua: ADVANCE });
    this.redis = redis as Redis & CounterCommands;
  }

  /** The counter's value, started from the clock if it has none. */
  read(key: string): Promise<string> {
    return this.redis.gatewayReadCounter(key, this.idleSeconds);
  }

  /** Counts it up (from the clock if it has none); answers the new value. */
  advance(key: string): Promise<string> {
    return this.redis.gatewayAdvanceCounter(key, this.idleSeconds);
  }
}
