import http from 'node:http';

/** `/livez` (the process answers) and `/readyz` (its critical dependencies are usable) for HTTP-only services. */
export function createHealthServer(isReady: () => boolean): http.Server {
  return http.createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    const ok = path === '/livez' ? true : path === '/readyz' ? isReady() : undefined;
    if (ok === undefined) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(ok ? 200 : 503, { 'Content-Type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify({ status: ok ? 'ok' : 'unavailable' }));
  });
}

export function listen(server: http.Server, port: number, host = '127.0.0.1'): Promise<number> {
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : port);
    });
  });
}

/** Keep-alive clients (Node's fetch and agents) read this and stop reusing an idle connection before it ends. */
const KEEP_ALIVE_TIMEOUT_MS = 5_000;

/**
 * Stops an HTTP server without failing a keep-alive client that is about to reuse its connection. Closing idle
 * connections at once races such a client: its request is on the wire when the connection goes, and it gets a reset
 * for a request the server never saw. Instead, for up to `drainMs`, every response asks its client to close the
 * connection (`Connection: close`) and idle ones are left to the keep-alive timeout, which clients know from the
 * `Keep-Alive` header and honour with a margin; then the listener closes and in-flight requests finish. Returns
 * early once no connection is left. Meanwhile the process is unready, so no new clients come (the Kubernetes
 * preStop pause has already taken it out of the Service's endpoints).
 */
export async function drainServer(server: http.Server, drainMs: number): Promise<void> {
  if (!server.listening) return;
  if (drainMs > 0) {
    server.prependListener('request', (_req: http.IncomingMessage, res: http.ServerResponse) => {
      if (!res.headersSent) res.setHeader('Connection', 'close');
    });
    const deadline = Date.now() + drainMs;
    while (Date.now() < deadline && (await openConnections(server)) > 0) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  await closeServer(server);
}

const openConnections = (server: http.Server) =>
  new Promise<number>((resolve) => server.getConnections((err, count) => resolve(err ? 0 : count)));

/** The drain window that outlasts every idle keep-alive connection (see drainServer). */
export const KEEP_ALIVE_DRAIN_MS = KEEP_ALIVE_TIMEOUT_MS + 1_000;

export function closeServer(server: http.Server): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) return resolve();
    server.close(() => resolve());
    server.closeIdleConnections?.();
  });
}
