import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { identifyCaller } from './caller';
import { stdioSettings } from './config';
import { remoteApi } from './remote';
import { mcpServer } from './server';

/**
 * The MCP server on stdin/stdout, for a local agent: `npm run -s mcp -- --url http://127.0.0.1:8080` with the key in
 * FLOWBOARD_API_KEY (or `--key`). The same tools and resources as `/mcp`, each call a request to the gateway at the
 * URL over HTTP (remote.ts). stdout is the protocol's: everything else goes to stderr (hence `-s`, which keeps npm's
 * banner off it).
 */
async function main(): Promise<void> {
  const settings = stdioSettings(process.argv.slice(2));
  if ('usage' in settings) {
    process.stderr.write(`${settings.usage}\n`);
    process.exit(settings.help ? 0 : 2);
  }
  const found = await identifyCaller(remoteApi(settings.url, settings.key), settings.key);
  if ('refused' in found) {
    const { status, body } = found.refused;
    process.stderr.write(`flowboard-mcp: ${settings.url} refused the key (${status}): ${body}\n`);
    process.exit(1);
  }
  await mcpServer(found.caller).connect(new StdioServerTransport());
}

main().catch((err: unknown) => {
  process.stderr.write(`flowboard-mcp: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
