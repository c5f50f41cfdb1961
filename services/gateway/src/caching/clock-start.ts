/**
 * Lua for a counter that must never repeat a value it held before, even after Redis lost it (a restart without
 * persistence, an expiry): a missing counter starts from the server's clock in microseconds, beyond any value
 * it could have reached by counting (changes are far rarer than one a microsecond). `ttlArg` names the ARGV
 * holding an expiry in seconds for counters that should vanish when idle.
 *
 * The scripts answer the value as Redis holds it (a string): Lua's tostring() prints 16-digit numbers as
 * `1.7639391234568e+15`, which is not the value.
 */
export function startFromClockIfMissing(ttlArg?: string): string {
  const expiry = ttlArg ? `, 'EX', ${ttlArg}` : '';
  return `
if not redis.call('GET', KEYS[1]) then
  local now = redis.call('TIME')
  redis.call('SET', KEYS[1], now[1] .. string.format('%06d', tonumber(now[2]))${expiry})
end`;
}
