import http, { type RequestListener } from 'node:http';
import { duplexPair } from 'node:stream';
import { requestHeaders, type ApiAnswer, type ApiRequest, type ApiTransport } from './api-transport';

/**
 * The gateway's own app, reached in memory: each request is real HTTP/1.1 written into one end of an in-memory
 * stream pair and served, from the other end, by an `http.Server` that never listens, with the app as its handler.
 * So a tool call is a request like any other (same parser, same middleware, its own request id and access-log
 * line), yet it opens no socket and the app sees the MCP caller's own address: the rate limit per address stays the
 * caller's, not 127.0.0.1's shared by every agent, and no port or TLS setting of the deployment is involved.
 *
 * Why not light-my-request: with an Express app it re-parents Express's shared request and response prototypes onto
 * its own fakes, for good, so the first injection breaks every real request the same process serves afterwards.
 */
export interface InProcessCaller {
  /** The key as the caller sent it (undefined: none, and the API answers 401). */
  apiKey: string | undefined;
  /** The address the app saw the caller come from (Express's `req.ip`, which honours `trust proxy`). */
  remoteAddress: string;
  /** The MCP request's id, so that its API calls log under the same one. */
  requestId?: string;
}

/** Request line and headers, as the gateway's own server allows (app.ts): a long `where` filter fits. */
const MAX_REQUEST_HEAD_BYTES = 64 * 1024;

/** Makes transports into `app`, one per caller. */
export function inProcessApi(app: RequestListener): (caller: InProcessCaller) => ApiTransport {
  const server = http.createServer({ maxHeaderSize: MAX_REQUEST_HEAD_BYTES }, app);
  return (caller) => ({
    send: (request) => serveInMemory(server, caller, request),
  });
}

function serveInMemory(
  server: http.Server,
  caller: InProcessCaller,
  request: ApiRequest,
): Promise<ApiAnswer> {
  const [clientEnd, serverEnd] = duplexPair();
  // What the app reads as the peer (req.socket.remoteAddress, hence req.ip).
  Object.defineProperties(serverEnd, {
    remoteAddress: { value: caller.remoteAddress },
    remotePort: { value: 0 },
    encrypted: { value: false },
  });
  server.emit('connection', serverEnd);
  const body = request.body === undefined ? undefined : JSON.stringify(request.body);
  const headers = {
    ...requestHeaders(caller.apiKey, request),
    ...(caller.requestId ? { 'x-request-id': caller.requestId } : {}),
    ...(body !== undefined ? { 'content-length': String(Buffer.byteLength(body)) } : {}),
  };
  return new Promise<ApiAnswer>((resolve, reject) => {
    const outgoing = http.request(
      {
        method: request.method,
        path: request.path,
        headers: { host: 'gateway.in-process', ...headers },
        // One connection per request, ours alone: no agent, no pool, closed after the answer.
        createConnection: () => clientEnd,
      },
      (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('error', reject);
        incoming.on('end', () => {
          clientEnd.destroy();
          resolve({
            status: incoming.statusCode ?? 500,
            headers: flatHeaders(incoming.headers),
            body: Buffer.concat(chunks).toString('utf8'),
          });
        });
      },
    );
    outgoing.on('error', (err) => {
      clientEnd.destroy();
      reject(err);
    });
    outgoing.end(body);
  });
}

export function flatHeaders(headers: http.IncomingHttpHeaders): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(headers)) {
    out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}
