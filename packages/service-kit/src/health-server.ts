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
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : port);
    });
  });
}

export function closeServer(server: http.Server): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) return resolve();
    server.close(() => resolve());
    server.closeIdleConnections?.();
  });
}
