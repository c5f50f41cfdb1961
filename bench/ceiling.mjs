// The ceiling the gateway is measured against (issue 31): a hello-world on node's own http module and one on
// express, the gateway's framework, each in a process of its own like the gateway, loaded by the same autocannon in
// the same run as the scenarios. Their ratios, not absolute figures, carry a claim on a shared 2-core machine.
//   node bench/ceiling.mjs http|express   → prints the port it listens on (loopback), then serves until killed.
import http from 'node:http';
import express from 'express';

const kind = process.argv[2];
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
} else {
  console.error('usage: node bench/ceiling.mjs http|express');
  process.exit(2);
}
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
