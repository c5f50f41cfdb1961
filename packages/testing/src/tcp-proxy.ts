import net from 'node:net';

/**
 * A TCP relay in front of a real server (PostgreSQL, MinIO...), so a test can take that server away from one
 * service and give it back, without stopping what other tests and services share.
 */
export interface TcpProxy {
  /** The relay's loopback port. */
  readonly port: number;
  /** `url` with its host and port replaced by the relay's. */
  through(url: string): string;
  /** An outage: open connections are dropped and new ones refused, until `restore`. */
  cut(): Promise<void>;
  /** Listens again on the same port. */
  restore(): Promise<void>;
  close(): Promise<void>;
}

/** Ports of the schemes a test proxies, when the URL names none. */
const DEFAULT_PORTS: Record<string, number> = { 'postgres:': 5432, 'postgresql:': 5432, 'http:': 80 };

/** A relay in front of the server `serverUrl` names (`postgres://user@host:5432/db`, `http://host:9000`). */
export async function startTcpProxy(serverUrl: string): Promise<TcpProxy> {
  const url = new URL(serverUrl);
  const target = { host: url.hostname, port: Number(url.port) || (DEFAULT_PORTS[url.protocol] ?? 0) };
  if (!target.port) throw new Error(`no port in ${url.protocol} URL, and no default known`);
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host);
    for (const [a, b] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      sockets.add(a);
      a.on('close', () => sockets.delete(a));
      a.on('error', () => b.destroy());
      a.on('close', () => b.destroy());
      a.pipe(b);
    }
  });
  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve((server.address() as net.AddressInfo).port);
      });
    });
  const stop = () =>
    new Promise<void>((resolve) => {
      if (!server.listening) return resolve();
      server.close(() => resolve());
      for (const socket of sockets) socket.destroy();
    });

  const port = await listen(0);
  return {
    port,
    through(url) {
      const u = new URL(url);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
    cut: stop,
    restore: async () => {
      await listen(port);
    },
    close: stop,
  };
}
