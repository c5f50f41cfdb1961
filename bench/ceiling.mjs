// The ceilings the gateway is measured against (issue 31), each in a process of its own like the gateway, loaded by
// the same autocannon in the same run as the scenarios. Their ratios, not absolute figures, carry a claim on a shared
// 2-core machine.
//   node bench/ceiling.mjs http|express            a hello-world on node's http module, and on express
//   node bench/ceiling.mjs express-body FILE       express sending FILE's bytes as JSON: the cached page's own body,
//                                                  so the framework's ceiling for the response the gateway sends
//   node bench/ceiling.mjs express-redis-body FILE the same after one Redis round trip of four commands, as the
//                                                  gateway makes before each request (REDIS_URL): the least an exact
//                                                  rate limit and cache check across replicas costs
// Prints the port it listens on (loopback), then serves until killed.
import fs from 'node:fs';
import http from 'node:http';
import express from 'express';
import Redis from 'ioredis';

const [kind, file] = process.argv.slice(2);
const body = file ? fs.readFileSync(file) : undefined;
let server;
if (kind === 'http') {
  server = http.createServer((req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    res.end('Hello World!');
  });
} else if (kind === 'express') {
  const app = express();
  app.get('/', (req, res) => res.send('Hello World!'));
  server = http.createServer(app);
} else if (kind === 'express-body' && body) {
  const app = express();
  app.get('/', (req, res) => res.type('application/json').send(body));
  server = http.createServer(app);
} else if (kind === 'express-redis-body' && body && process.env.REDIS_URL) {
  // One auto-pipelined round trip per request, like the gateway's (epoch, two rate-limit counters, board version).
  const redis = new Redis(process.env.REDIS_URL, { enableAutoPipelining: true });
  const app = express();
  let n = 0;
  app.get('/', async (req, res) => {
    const window = `ceiling:${Math.floor(Date.now() / 60_000)}:${n++ % 64}`;
    await Promise.all([
      redis.get('ceiling:epoch'),
      redis.incr(window),
      redis.incr(`${window}:addr`),
      redis.get('ceiling:v'),
    ]);
    res.type('application/json').send(body);
  });
  server = http.createServer(app);
} else {
  console.error(
    'usage: node bench/ceiling.mjs http|express|express-body FILE|express-redis-body FILE (REDIS_URL)',
  );
  process.exit(2);
}
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
