import type Redis from 'ioredis';

/**
 * Stands in for the two ClockCounters scripts (here: the cache epoch) in unit tests: `server.epoch` is the value,
 * `server.up` whether Redis answers at all.
 */
export function fakeEpochRedis() {
  const server = { epoch: '1000', up: true };
  const answer = (value: () => string) =>
    server.up ? Promise.resolve(value()) : Promise.reject(new Error('Connection is closed.'));
  const redis = {
    defineCommand: () => undefined,
    gatewayReadCounter: () => answer(() => server.epoch),
    gatewayAdvanceCounter: () => answer(() => (server.epoch = String(Number(server.epoch) + 1))),
  };
  return { server, redis: redis as unknown as Redis };
}
