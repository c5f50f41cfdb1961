import type { RequestListener } from 'node:http';
import type { RequestHandler, Response } from 'express';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { extractApiKey } from '../authz/credentials';
import { readBodyText } from '../wire/body';
import { Query } from '../wire/query';
import type { ApiAnswer } from './api-transport';
import { identifyCaller } from './caller';
import { inProcessApi } from './in-process';
import { mcpServer } from './server';

export const MCP_PATH = '/mcp';

export interface McpEndpointDeps {
  /** The gateway's own app: every tool call is a request into it (in-process.ts). */
  app: RequestListener;
  /** The API's body limit (413 above). */
  bodyLimit: number;
}

/**
 * `/mcp`: the MCP Streamable HTTP transport, stateless (a fresh server per request: no session to keep or share
 * between replicas) and answering JSON rather than an event stream. In order: the API key, checked by the API
 * itself (401 before anything else is read), then the body within the API's limit, then the message.
 * GET (a stream of server-initiated messages) and DELETE (ending a session) have nothing to serve without
 * sessions: 405, as the transport's specification allows.
 */
export function mcpEndpoint(deps: McpEndpointDeps): RequestHandler {
  const apiAs = inProcessApi(deps.app);
  return async (req, res, next) => {
    if (req.path !== MCP_PATH && req.path !== `${MCP_PATH}/`) return next();
    if (req.method === 'OPTIONS') return preflight(res);
    if (req.method !== 'POST') {
      res.status(405).setHeader('Allow', 'POST, OPTIONS');
      return jsonRpcError(res, -32000, 'Method not allowed: this server is stateless, POST a message.');
    }

    const rawKey = extractApiKey(req.headers, new Query(new URL(req.url, 'http://mcp').search));
    const api = apiAs({
      apiKey: rawKey,
      remoteAddress: req.ip ?? req.socket.remoteAddress ?? 'unknown',
      requestId: res.getHeader('X-Request-Id') as string | undefined,
    });
    const found = await identifyCaller(api, rawKey);
    if ('refused' in found) return relay(res, found.refused);

    let message: unknown;
    try {
      message = JSON.parse(await readBodyText(req, deps.bodyLimit));
    } catch (err) {
      if (!(err instanceof SyntaxError)) throw err; // 413 and the like: the error handler answers
      res.status(400);
      return jsonRpcError(res, -32700, 'Parse error: the body is not JSON.');
    }

    const server = mcpServer(found.caller);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    res.once('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, message);
  };
}

/** Browser-based MCP clients ask first; the answer's origin header comes from cors() like every answer's. */
function preflight(res: Response): void {
  res.setHeader('Access-Control-Allow-Methods', 'POST, OPTIONS');
  res.setHeader(
    'Access-Control-Allow-Headers',
    'X-Zen-ApiKey, Authorization, Content-Type, Accept, Mcp-Protocol-Version, Mcp-Session-Id, Last-Event-ID',
  );
  res.setHeader('Access-Control-Max-Age', '600');
  res.status(204).end();
}

/** The API's own refusal of the key, as it gave it: 401 with its problem and WWW-Authenticate, 429, 503... */
function relay(res: Response, answer: ApiAnswer): void {
  res.status(answer.status);
  for (const [name, value] of Object.entries(answer.headers)) {
    if (value !== undefined && (RELAYED.has(name) || name.startsWith('ratelimit-')))
      res.setHeader(name, value);
  }
  res.setHeader('Content-Length', Buffer.byteLength(answer.body));
  res.end(answer.body);
}
const RELAYED = new Set(['content-type', 'www-authenticate', 'retry-after']);

function jsonRpcError(res: Response, code: number, message: string): void {
  const body = JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null });
  res.setHeader('Content-Type', 'application/json');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}
