import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { EMPTY_ALLOW_LIST, parseAllowList } from '../../src/domain/address-policy';
import { parseWebhookUrl } from '../../src/domain/webhook-url';
import { createWebhookSender } from '../../src/http/webhook-sender';
import type { HostResolver } from '../../src/application/ports';

// The outbound HTTP client against real sockets on loopback: pinning to the checked address, the timeout, the cap
// on what is read, and the failures it reports. No database or Kafka.

let server: http.Server;
let port: number;
let handler: (req: http.IncomingMessage, res: http.ServerResponse) => void;
const hosts: string[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    hosts.push(String(req.headers.host));
    req.resume();
    req.on('end', () => handler(req, res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** A resolver that knows one name, and counts how often it is asked. */
function resolver(answers: Record<string, string[]>) {
  const asked: string[] = [];
  const r: HostResolver = {
    resolve: async (host) => {
      asked.push(host);
      return answers[host] ?? [];
    },
  };
  return { resolver: r, asked };
}

const send = (
  url: string,
  options: {
    answers?: Record<string, string[]>;
    allow?: string[];
    timeoutMs?: number;
    maxResponseBytes?: number;
  } = {},
) => {
  const { resolver: r, asked } = resolver(options.answers ?? {});
  const sender = createWebhookSender({
    resolver: r,
    allowList: options.allow ? parseAllowList(options.allow) : EMPTY_ALLOW_LIST,
    timeoutMs: options.timeoutMs ?? 2_000,
    maxResponseBytes: options.maxResponseBytes ?? 65_536,
  });
  const result = sender.send({
    target: parseWebhookUrl(url),
    headers: { 'content-type': 'application/json' },
    body: '{"a":1}',
    signal: new AbortController().signal,
  });
  return { result, asked };
};

it('resolves once and connects to the address it checked: the name is never looked up again', async () => {
  handler = (_req, res) => res.writeHead(204).end();
  // hooks.example.test exists only in this resolver: a second lookup by the system would fail.
  const { result, asked } = send(`http://hooks.example.test:${port}/in`, {
    answers: { 'hooks.example.test': ['127.0.0.1'] },
    allow: ['127.0.0.0/8'],
  });
  expect(await result).toMatchObject({ ok: true, statusCode: 204, error: '' });
  expect(asked).toEqual(['hooks.example.test']);
  expect(hosts.at(-1)).toBe(`hooks.example.test:${port}`); // the Host header still names the host
});

it('refuses before connecting when the name resolves to a refused address', async () => {
  const before = hosts.length;
  const { result } = send(`http://rebind.example.test:${port}/`, {
    answers: { 'rebind.example.test': ['127.0.0.1'] },
  });
  expect(await result).toMatchObject({
    ok: false,
    statusCode: 0,
    error: 'refused: 127.0.0.1 is a loopback address, which webhooks may not reach',
  });
  expect(hosts.length).toBe(before);
});

it('times out an answer that does not come', async () => {
  handler = () => undefined; // never answers
  const { result } = send(`http://127.0.0.1:${port}/`, { allow: ['127.0.0.1'], timeoutMs: 300 });
  const r = await result;
  expect(r).toMatchObject({ ok: false, statusCode: 0, error: 'timed out after 300 ms' });
  expect(r.latencyMs).toBeGreaterThanOrEqual(290);
  expect(r.latencyMs).toBeLessThan(2_000);
});

it('reads at most the cap of a large answer, and keeps a short error text', async () => {
  let written = 0;
  handler = (_req, res) => {
    res.writeHead(500, { 'content-type': 'text/plain' });
    const chunk = Buffer.alloc(16_384, 'x');
    const pump = () => {
      while (written < 50 * 1024 * 1024 && res.write(chunk)) written += chunk.length;
      if (written < 50 * 1024 * 1024) res.once('drain', pump);
      else res.end();
    };
    res.on('error', () => undefined);
    pump();
  };
  const { result } = send(`http://127.0.0.1:${port}/`, { allow: ['127.0.0.1'], maxResponseBytes: 1_024 });
  const r = await result;
  expect(r.ok).toBe(false);
  expect(r.statusCode).toBe(500);
  expect(r.error.startsWith('HTTP 500: xxxx')).toBe(true);
  expect(r.error.length).toBeLessThanOrEqual(1_000);
  expect(written).toBeLessThan(50 * 1024 * 1024); // it stopped reading long before the end
});

it('reports a refused connection, and a name that does not resolve', async () => {
  const closed = http.createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const deadPort = (closed.address() as AddressInfo).port;
  await new Promise((resolve) => closed.close(resolve));
  expect(await send(`http://127.0.0.1:${deadPort}/`, { allow: ['127.0.0.1'] }).result).toMatchObject({
    ok: false,
    error: `connection refused by 127.0.0.1:${deadPort}`,
  });
  expect(await send('http://nowhere.example.test/').result).toMatchObject({
    ok: false,
    error: 'nowhere.example.test does not resolve',
  });
});
