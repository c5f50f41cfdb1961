import { parseArgs } from 'node:util';

/**
 * The stdio entry point's settings (stdio.ts): the gateway's URL and the API key, from the flags or else from
 * FLOWBOARD_URL and FLOWBOARD_API_KEY. The environment is the better place for the key: the process list shows flags.
 */
export interface StdioSettings {
  url: string;
  key: string;
}

export const STDIO_USAGE =
  'usage: npm run -s mcp -- --url <gateway base URL> [--key <API key>]   (or FLOWBOARD_URL, FLOWBOARD_API_KEY)';

/** The settings, or the usage line to print when something is missing (`help`: asked for). */
export function stdioSettings(
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): StdioSettings | { usage: string; help: boolean } {
  const { values } = parseArgs({
    args,
    options: { url: { type: 'string' }, key: { type: 'string' }, help: { type: 'boolean' } },
  });
  const url = values.url ?? env.FLOWBOARD_URL;
  const key = values.key ?? env.FLOWBOARD_API_KEY;
  if (values.help || !url || !key) return { usage: STDIO_USAGE, help: values.help === true };
  if (!/^https?:\/\//.test(url))
    return { usage: `--url must be an http(s) URL. ${STDIO_USAGE}`, help: false };
  return { url, key };
}
