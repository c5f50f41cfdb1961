import net from 'node:net';

/**
 * A TCP relay in front of a real server (PostgreSQL, MinIO, Redis, a gRPC peer...), so a test can take that server
 * away from one service and give it back, without stopping what other tests and services share. It plays the
 * server **down** (`cut`: connections dropped and refused) or **hung**, as a process under SIGSTOP is (`pause`:
 * connections stay open and new ones are accepted, but nothing said on them arrives or is answered until `resume`,
 * which delivers what waited, in order), or a **lost route** (`blackhole`: a connection made meanwhile is accepted and
 * never relayed or closed, even after `clearRoute`, as a SYN sent to a replica that just went away keeps following
 * its stale connection-tracking entry).
 */
export interface TcpProxy {
  /** The relay's loopback port. */
  readonly port: number;
  /** `127.0.0.1:<port>`, for clients configured with a host and port (gRPC targets, Redis hosts). */
  readonly address: string;
  /** `url` with its host and port replaced by the relay's. */
  through(url: string): string;
  /** An outage: open connections are dropped and new ones refused, until `restore`. */
  cut(): Promise<void>;
  /** Listens again on the same port. */
  restore(): Promise<void>;
  /** A hang: connections open, nothing delivered either way, until `resume`. */
  pause(): void;
  /** Delivers what waited, in order, and relays again. */
  resume(): void;
  /** A lost route: open connections dropped; the ones made from now on are swallowed for good. */
  blackhole(): void;
  /** New connections are relayed again; the ones swallowed stay so. */
  clearRoute(): void;
  close(): Promise<void>;
}

/** Ports of the schemes a test proxies, when the URL names none. */
const DEFAULT_PORTS: Record<string, number> = { 'postgres:': 5432, 'postgresql:': 5432, 'http:': 80 };

/**
 * A relay in front of the server `server` names: a URL (`postgres://user@host:5432/db`, `http://host:9000`) or a
 * `host:port` address.
 */
export async function startTcpProxy(server: string): Promise<TcpProxy> {
  const url = new URL(/^[a-z][\w+.-]*:\/\//i.test(server) ? server : `tcp://${server}`);
  const target = { host: url.hostname, port: Number(url.port) || (DEFAULT_PORTS[url.protocol] ?? 0) };
  if (!target.port) throw new Error(`no port in ${url.protocol} URL, and no default known`);
  let paused = false;
  let blackholed = false;
  const flushes = new Set<() => void>();
  const sockets = new Set<net.Socket>();
  const relay = net.createServer((client) => {
    if (blackholed) {
      sockets.add(client);
      client.on('error', () => undefined);
      client.on('close', () => sockets.delete(client));
      return; // accepted, never answered: nothing read is relayed, nothing is ever sent back
    }
    const upstream = net.connect(target.port, target.host);
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      const held: Buffer[] = [];
      const flush = () => {
        for (const chunk of held.splice(0)) to.write(chunk);
      };
      sockets.add(from);
      flushes.add(flush);
      from.on('data', (chunk: Buffer) => (paused ? held.push(chunk) : to.write(chunk)));
      from.on('error', () => to.destroy());
      from.on('close', () => {
        sockets.delete(from);
        flushes.delete(flush);
        to.destroy();
      });
    }
  });
  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      relay.once('error', reject);
      relay.listen(port, '127.0.0.1', () => {
        relay.off('error', reject);
        resolve((relay.address() as net.AddressInfo).port);
      });
    });
  const stop = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      if (!relay.listening) return resolve();
      relay.close(() => resolve());
    });

  const port = await listen(0);
  return {
    port,
    address: `127.0.0.1:${port}`,
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
    pause() {
      paused = true;
    },
    resume() {
      paused = false;
      for (const flush of flushes) flush();
    },
    blackhole() {
      blackholed = true;
      for (const socket of sockets) socket.destroy();
    },
    clearRoute() {
      blackholed = false;
    },
    close: stop,
  };
}
