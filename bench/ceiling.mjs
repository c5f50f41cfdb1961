// The ceilings the gateway is measured against (issue 31), each in a process of its own like the gateway, loaded by
// the same autocannon in the same run as the scenarios. Their ratios, not absolute figures, carry a claim on a shared
// 2-core machine.
//   node bench/ceiling.mjs http|express            a hello-world on node's http module, and on express
//   node bench/ceiling.mjs express-body FILE       express sending FILE's bytes as JSON: the cached page's own body,
//                                                  so the framework's ceiling for the response the gateway sends
//   node bench/ceiling.mjs express-redis-body FILE the same after one Redis round trip of four commands, as the
//                                                  gateway makes before each request (REDIS_URL): the least an exact
//                                                  rate limit and cache check across replicas costs
//   node bench/ceiling.mjs skeleton-store B S         a move's skeleton, the store half: a gRPC server (grpc-js,
//                                                  proto-loader) whose one call runs a move's six PostgreSQL round
//                                                  trips (pg, a pool of 10, as boards) on tables of its own: BEGIN
//                                                  with the board's row lock, the story locked, its update, a
//                                                  history row, an outbox row, COMMIT (PG_ADMIN_URL); B boards
//                                                  of S stories
//   node bench/ceiling.mjs skeleton-edge ADDRESS      the edge half: express reads the JSON body, makes one Redis
//                                                  round trip of four commands, calls the store with a deadline,
//                                                  advances a version in Redis and answers the story as JSON
// The skeleton has the stack's hops, libraries and statements, and none of its work: no authentication, domain
// rules, validation, logs, metrics, traces, triggers or foreign keys, and no event pipeline behind the outbox.
// Prints the port it listens on (loopback), then serves until killed.
import fs from 'node:fs';
import http from 'node:http';
import grpc from '@grpc/grpc-js';
import protoLoader from '@grpc/proto-loader';
import express from 'express';
import Redis from 'ioredis';
import pg from 'pg';

const [kind, file] = process.argv.slice(2);
const body = kind?.endsWith('-body') && file ? fs.readFileSync(file) : undefined;
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
  const checks = gatewayChecks(new Redis(process.env.REDIS_URL, { enableAutoPipelining: true }), 'ceiling');
  const app = express();
  app.get('/', async (req, res) => {
    await checks('ceiling:v');
    res.type('application/json').send(body);
  });
  server = http.createServer(app);
} else if (kind === 'skeleton-store' && process.env.PG_ADMIN_URL) {
  const port = await serveSkeletonStore(process.env.PG_ADMIN_URL, Number(file), Number(process.argv[4]));
  console.log(port);
} else if (kind === 'skeleton-edge' && file && process.env.REDIS_URL) {
  server = http.createServer(
    skeletonEdge(file, new Redis(process.env.REDIS_URL, { enableAutoPipelining: true })),
  );
} else {
  console.error(
    'usage: node bench/ceiling.mjs http|express|express-body FILE|express-redis-body FILE (REDIS_URL)|' +
      'skeleton-store BOARDS STORIES (PG_ADMIN_URL)|skeleton-edge STORE_ADDRESS (REDIS_URL)',
  );
  process.exit(2);
}
server?.listen(0, '127.0.0.1', () => console.log(server.address().port));

/**
 * One auto-pipelined Redis round trip of four commands, like the gateway's before each request (authentication's
 * epoch, two rate-limit counters, the board's version at `versionKey`).
 */
function gatewayChecks(redis, prefix) {
  let n = 0;
  return (versionKey) => {
    const window = `${prefix}:${Math.floor(Date.now() / 60_000)}:${n++ % 64}`;
    return Promise.all([
      redis.get(`${prefix}:epoch`),
      redis.incr(window),
      redis.incr(`${window}:addr`),
      redis.get(versionKey),
    ]);
  };
}

function skeletonService() {
  const definition = protoLoader.loadSync(new URL('./skeleton.proto', import.meta.url).pathname, {
    keepCase: true,
    longs: Number,
    defaults: true,
  });
  return grpc.loadPackageDefinition(definition).bench.skeleton.v1.SkeletonStore;
}

/** The skeleton's own boards and stories (`boards` × `stories`, made once, kept between runs). */
async function serveSkeletonStore(url, boards, stories) {
  if (!Number.isSafeInteger(boards) || !Number.isSafeInteger(stories))
    throw new Error('boards and stories: integers');
  const db = new pg.Pool({ connectionString: url, max: 10 });
  await db.query(`
    CREATE SCHEMA IF NOT EXISTS bench_skeleton;
    CREATE TABLE IF NOT EXISTS bench_skeleton.boards (id bigint PRIMARY KEY);
    CREATE TABLE IF NOT EXISTS bench_skeleton.stories (
      board_id bigint NOT NULL, id bigint NOT NULL, phase bigint NOT NULL, position bigint NOT NULL,
      version bigint NOT NULL DEFAULT 1, text text NOT NULL, updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (board_id, id));
    CREATE INDEX IF NOT EXISTS stories_by_phase ON bench_skeleton.stories (board_id, phase, position);
    CREATE TABLE IF NOT EXISTS bench_skeleton.history (
      board_id bigint NOT NULL, story_id bigint NOT NULL, phase bigint NOT NULL, actor_id bigint NOT NULL,
      start_time timestamptz NOT NULL DEFAULT now());
    CREATE INDEX IF NOT EXISTS history_by_story ON bench_skeleton.history (board_id, story_id);
    CREATE TABLE IF NOT EXISTS bench_skeleton.outbox (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(), key text NOT NULL, payload jsonb NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now());
    TRUNCATE bench_skeleton.history, bench_skeleton.outbox;
    INSERT INTO bench_skeleton.boards SELECT generate_series(1, ${boards}) ON CONFLICT DO NOTHING;
    INSERT INTO bench_skeleton.stories (board_id, id, phase, position, text)
      SELECT b, s, 1, s, 'a story of the skeleton' FROM generate_series(1, ${boards}) b,
           generate_series(1, ${stories}) s
      ON CONFLICT DO NOTHING;`);
  const moveStory = async (request) => {
    const boardId = Number(request.board_id);
    if (!Number.isSafeInteger(boardId)) throw new Error('not a board id');
    const client = await db.connect();
    try {
      await client.query(`BEGIN; SELECT 1 FROM bench_skeleton.boards WHERE id = ${boardId} FOR UPDATE`);
      const found = await client.query({
        name: 'skeleton-find',
        text: 'SELECT * FROM bench_skeleton.stories WHERE board_id = $1 AND id = $2 FOR UPDATE',
        values: [boardId, request.story_id],
      });
      if (found.rows.length === 0) throw new Error('no such story');
      const updated = await client.query({
        name: 'skeleton-update',
        text: `UPDATE bench_skeleton.stories SET phase = $3, version = version + 1, updated_at = now(),
                 position = (SELECT coalesce(max(position), 0) + 1 FROM bench_skeleton.stories
                             WHERE board_id = $1 AND phase = $3)
               WHERE board_id = $1 AND id = $2 RETURNING *`,
        values: [boardId, request.story_id, request.phase],
      });
      await client.query({
        name: 'skeleton-history',
        text: 'INSERT INTO bench_skeleton.history (board_id, story_id, phase, actor_id) VALUES ($1, $2, $3, $4)',
        values: [boardId, request.story_id, request.phase, request.actor_id],
      });
      const story = updated.rows[0];
      await client.query({
        name: 'skeleton-outbox',
        text: 'INSERT INTO bench_skeleton.outbox (key, payload) VALUES ($1, $2)',
        values: [String(boardId), JSON.stringify({ type: 'story.moved', story })],
      });
      await client.query('COMMIT');
      return { ...story, updated_at: story.updated_at.toISOString() };
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  };
  const server = new grpc.Server();
  server.addService(skeletonService().service, {
    MoveStory: (call, callback) =>
      moveStory(call.request).then(
        (story) => callback(null, story),
        (err) => callback({ code: grpc.status.INTERNAL, details: String(err) }),
      ),
  });
  return new Promise((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, port) =>
      err ? reject(err) : resolve(port),
    ),
  );
}

function skeletonEdge(storeAddress, redis) {
  const Store = skeletonService();
  const store = new Store(storeAddress, grpc.credentials.createInsecure());
  const checks = gatewayChecks(redis, 'skeleton');
  const app = express();
  app.use(express.json({ limit: '1mb' }));
  app.put('/boards/:board/stories/:story', async (req, res) => {
    await checks(`skeleton:v:${req.params.board}`);
    const request = {
      board_id: Number(req.params.board),
      story_id: Number(req.params.story),
      phase: Number(req.body.phase),
      actor_id: 1,
    };
    store.MoveStory(request, { deadline: Date.now() + 5_000 }, async (err, story) => {
      if (err) return res.status(500).json({ error: err.details });
      await redis.incr(`skeleton:v:${req.params.board}`);
      res.json({ story });
    });
  });
  return app;
}
