/** Integration and e2e tests take their endpoints from the environment (set by `npm test`, or by hand). */
export function requireEnv<K extends string>(...names: K[]): Record<K, string> {
  const missing = names.filter((n) => !process.env[n]);
  if (missing.length) {
    throw new Error(
      `Missing ${missing.join(', ')}. Run the tests through \`npm test\`, which starts the local stack, ` +
        'or `source <FLOWBOARD_HOME>/infra.env` of a running stack first.',
    );
  }
  return Object.fromEntries(names.map((n) => [n, process.env[n] as string])) as Record<K, string>;
}

export const uniqueSuffix = (): string =>
  `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;

/** Polls `probe` until it returns a value other than undefined, or fails after `timeoutMs`. */
export async function waitFor<T>(
  probe: () => Promise<T | undefined>,
  timeoutMs: number,
  what: string,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
