import type { Request, Response } from 'express';
import type Redis from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { isDomainError, type Logger } from '@flowboard/service-kit';
import { rateLimitHeaders, type RateLimitState } from './rate-limit-headers';
import { HttpProblem } from '../wire/problem';

export interface RateLimitSettings {
  enabled: boolean;
  /** Requests per API key per window. */
  points: number;
  windowSeconds: number;
  /** Unauthenticated requests (failed authentications, sign-ups) per client address per window. */
  anonymousPoints: number;
}

export interface RateLimits {
  /**
   * Before authentication: 429 for an address that used up its unauthenticated budget. A request to a public
   * route (sign-up) spends it.
   */
  gateAddress(req: Request, publicRoute: boolean): Promise<void>;
  /** When authentication failed: the failure spends the address's budget. */
  countFailedAuthentication(req: Request, error: unknown): Promise<void>;
  /**
   * After authentication: counts the request against its API key (or takes the count `spendAhead` made);
   * `RateLimit-*` headers; 429 over the limit.
   */
  spendKey(res: Response, keyHash: string, spentAhead?: Promise<RateLimitState | undefined>): Promise<void>;
  /**
   * Counts a request against a key before it is authenticated, so the count shares the request's first Redis
   * round trip; `spendKey` then uses this count instead of making its own. For keys known to be valid only.
   */
  spendAhead(keyHash: string): Promise<RateLimitState | undefined>;
}

/**
 * Fixed-window counters in Redis (rate-limiter-flexible: one atomic INCR+PEXPIRE script per request), shared by
 * every gateway replica. Keys: `gateway:ratelimit:key:<sha256(api key)>` (the key itself is never stored) and
 * `gateway:ratelimit:addr:<address>`.
 *
 * Redis down: each replica counts in its own memory instead (the library's insurance limiter), so limits stay
 * roughly in force (per replica) and no request fails because of the limiter; any other limiter error lets the
 * request through with a warning. A cache outage must not take the API down, and a short period of looser
 * limits is the cheaper failure.
 */
export function createRateLimits(redis: Redis, settings: RateLimitSettings, logger: Logger): RateLimits {
  if (!settings.enabled) {
    return {
      gateAddress: async () => undefined,
      countFailedAuthentication: async () => undefined,
      spendKey: async () => undefined,
      spendAhead: async () => undefined,
    };
  }
  const duration = settings.windowSeconds;
  const limiter = (keyPrefix: string, points: number) =>
    new RateLimiterRedis({
      storeClient: redis,
      keyPrefix,
      points,
      duration,
      // Not connected → straight to the in-memory counters, without waiting for a command to time out.
      rejectIfRedisNotReady: true,
      insuranceLimiter: new RateLimiterMemory({ keyPrefix, points, duration }),
    });
  const byKey = limiter('gateway:ratelimit:key', settings.points);
  const byAddress = limiter('gateway:ratelimit:addr', settings.anonymousPoints);
  // The address gate's check, as ONE command (the library's get() is a MULTI of GET and PTTL, a transaction
  // that auto-pipelining can't batch with the request's other reads). Same key as the library's.
  redis.defineCommand('gatewayWindowState', {
    numberOfKeys: 1,
    lua: "return {redis.call('GET', KEYS[1]) or false, redis.call('PTTL', KEYS[1])}",
  });
  const windowState = redis as Redis & {
    gatewayWindowState(key: string): Promise<[string | null, number]>;
  };

  let warnedAt = 0;
  const warnDegraded = () => {
    // At most one line a minute: during an outage every request would log.
    if (Date.now() - warnedAt < 60_000) return;
    warnedAt = Date.now();
    logger.warn({ redis: redis.status }, 'rate limits counted in memory (per replica): Redis not ready');
  };

  /** consume() → the window state, or undefined when the limiter failed (the request goes through). */
  async function spend(rl: RateLimiterRedis, key: string): Promise<RateLimitState | undefined> {
    if (redis.status !== 'ready') warnDegraded();
    try {
      const res = await rl.consume(key);
      return { limit: rl.points, consumed: res.consumedPoints, msBeforeReset: res.msBeforeNext };
    } catch (outcome) {
      if (outcome instanceof RateLimiterRes)
        return { limit: rl.points, consumed: outcome.consumedPoints, msBeforeReset: outcome.msBeforeNext };
      logger.warn({ err: outcome }, 'rate limiter failed; request let through');
      return undefined;
    }
  }

  /** The address's count so far; from the in-memory counters while Redis is not ready, as `spend` does. */
  async function addressWindow(address: string): Promise<RateLimitState | undefined> {
    if (redis.status !== 'ready') {
      const res = await byAddress.get(address).catch(() => null);
      return res
        ? { limit: byAddress.points, consumed: res.consumedPoints, msBeforeReset: res.msBeforeNext }
        : undefined;
    }
    const read = await windowState.gatewayWindowState(byAddress.getKey(address)).catch(() => undefined);
    if (!read || read[0] === null) return undefined;
    return { limit: byAddress.points, consumed: Number(read[0]), msBeforeReset: read[1] };
  }

  const tooMany = (state: RateLimitState, message: string) =>
    new HttpProblem('RateLimited', message, rateLimitHeaders(state, duration));

  const addressOf = (req: Request) => req.ip ?? req.socket.remoteAddress ?? 'unknown';

  return {
    async gateAddress(req, publicRoute) {
      const address = addressOf(req);
      if (publicRoute) {
        const spent = await spend(byAddress, address);
        if (spent && spent.consumed > spent.limit)
          throw tooMany(spent, 'Too many unauthenticated requests from this address; retry later.');
        return;
      }
      // Checking does not spend: only failures do, so a busy office behind one address is never blocked by
      // its own valid keys.
      const current = await addressWindow(address);
      if (current && current.consumed > current.limit)
        throw tooMany(current, 'Too many failed authentications from this address; retry later.');
    },

    async countFailedAuthentication(req, error) {
      if (isDomainError(error) && error.kind === 'Unauthenticated') await spend(byAddress, addressOf(req));
    },

    async spendKey(res, keyHash, spentAhead) {
      const spent = spentAhead ? await spentAhead : await spend(byKey, keyHash);
      if (!spent) return;
      const headers = rateLimitHeaders(spent, duration);
      if (spent.consumed > spent.limit)
        throw tooMany(spent, 'Too many requests for this API key; retry after Retry-After seconds.');
      for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    },

    spendAhead: (keyHash) => spend(byKey, keyHash),
  };
}
