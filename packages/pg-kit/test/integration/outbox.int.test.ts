import pg from 'pg';
import { Kafka, logLevel } from 'kafkajs';
import { createLogger, runWithContext, type RequestContext } from '@flowboard/service-kit';
import { KafkaPublisher, ensureTopics, createKafka } from '@flowboard/messaging';
import { requireEnv, startTcpProxy, uniqueSuffix, waitFor } from '@flowboard/testing';
import {
  OutboxRelay,
  createPool,
  enqueueOutbox,
  enqueueOutboxAll,
  readPending,
  withTransaction,
  type OutboxPublisher,
} from '../../src';

const { PG_ADMIN_URL, KAFKA_BROKERS } = requireEnv('PG_ADMIN_URL', 'KAFKA_BROKERS');
const logger = createLogger('pg-kit-test', 'silent');

const OUTBOX_DDL = (schema: string) => `
  CREATE TABLE ${schema}.outbox (
    id uuid PRIMARY KEY, topic text NOT NULL, key text NOT NULL, payload jsonb NOT NULL,
    headers jsonb NOT NULL DEFAULT '{}', created_at timestamptz NOT NULL DEFAULT now(),
    available_at timestamptz NOT NULL DEFAULT now(), published_at timestamptz,
    attempts integer NOT NULL DEFAULT 0, last_error text, seq bigint GENERATED ALWAYS AS IDENTITY);
  CREATE INDEX ON ${schema}.outbox (available_at, created_at) WHERE published_at IS NULL;`;

/**
 * A publisher whose first publish waits until the test lets it go (`release()` answers the function that does, once
 * that publish has begun), holding the relay in its pass; it records each event's `n` as it publishes.
 */
function holdingFirstPublish() {
  const seen: number[] = [];
  let letGo: (() => void) | undefined;
  const publisher: OutboxPublisher = {
    async publish(_t, messages) {
      if (seen.length === 0) await new Promise<void>((resolve) => (letGo = resolve));
      seen.push(...messages.map((m) => JSON.parse(m.value).n as number));
    },
  };
  return { publisher, seen, release: () => letGo };
}

describe('outbox relay (real PostgreSQL and Kafka)', () => {
  const schema = `outbox_${uniqueSuffix()}`;
  const topic = `pgkit-test-${uniqueSuffix()}`;
  let admin: pg.Pool;
  let pool: pg.Pool;
  const kafka = createKafka({ brokers: KAFKA_BROKERS.split(','), clientId: 'pg-kit-test', logger });

  beforeAll(async () => {
    admin = new pg.Pool({ connectionString: PG_ADMIN_URL });
    await admin.query(`CREATE SCHEMA ${schema}`);
    await admin.query(OUTBOX_DDL(schema));
    pool = createPool({ connectionString: PG_ADMIN_URL, schema, applicationName: 'test' });
    await ensureTopics(kafka, [topic]);
  });

  afterAll(async () => {
    await pool.end();
    await admin.query(`DROP SCHEMA ${schema} CASCADE`);
    await admin.end();
  });

  const event = (n: number) => ({ id: crypto.randomUUID(), topic, key: 'board-1', payload: { n } });

  it('names a committed change in its request’s record, and forgets one whose transaction rolled back', async () => {
    const context: RequestContext = { requestId: 'r', changes: [] };
    const [kept, undone, notAChange] = [event(1), event(2), event(3)];
    await runWithContext(context, async () => {
      await withTransaction(pool, async (tx) => {
        await enqueueOutbox(tx, schema, { ...kept, change: true });
        await enqueueOutbox(tx, schema, notAChange);
      });
      await withTransaction(pool, async (tx) => {
        await enqueueOutbox(tx, schema, { ...undone, change: true });
        throw new Error('business rule failed');
      }).catch(() => undefined);
    });
    expect(context.changes).toEqual([kept.id]);
    // Not to be published by the next test's relay.
    await pool.query('DELETE FROM outbox WHERE id = ANY($1)', [[kept.id, notAChange.id]]);
  });

  it('publishes committed events in order and never rolled-back ones', async () => {
    await withTransaction(pool, async (tx) => {
      for (let n = 1; n <= 5; n++) await enqueueOutbox(tx, schema, event(n));
    });
    await withTransaction(pool, async (tx) => {
      await enqueueOutbox(tx, schema, event(99));
      throw new Error('business rule failed');
    }).catch(() => undefined);

    const received: number[] = [];
    const consumer = new Kafka({ brokers: KAFKA_BROKERS.split(','), logLevel: logLevel.NOTHING }).consumer({
      groupId: `pgkit-test-${uniqueSuffix()}`,
    });
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message }) => void received.push(JSON.parse(String(message.value)).n),
    });

    const publisher = new KafkaPublisher(kafka);
    const relay = new OutboxRelay({ pool, schema, publisher, logger, intervalMs: 50 });
    relay.start();
    try {
      await waitFor(async () => (received.length >= 5 ? true : undefined), 20_000, 'five events on Kafka');
      expect(received).toEqual([1, 2, 3, 4, 5]);
      const { rows } = await pool.query(
        'SELECT count(*)::int AS pending FROM outbox WHERE published_at IS NULL',
      );
      expect(rows[0].pending).toBe(0);
    } finally {
      await relay.stop();
      await publisher.disconnect();
      await consumer.disconnect();
    }
  });

  it("publishes a transaction's events in the order it wrote them (they share created_at)", async () => {
    await pool.query('DELETE FROM outbox');
    await withTransaction(pool, async (tx) => {
      for (let n = 1; n <= 250; n++) await enqueueOutbox(tx, schema, event(n));
    });
    const seen: number[] = [];
    const recording: OutboxPublisher = {
      async publish(_t, messages) {
        seen.push(...messages.map((m) => JSON.parse(m.value).n as number));
      },
    };
    const relay = new OutboxRelay({
      pool,
      schema,
      publisher: recording,
      logger,
      intervalMs: 10,
      batchSize: 100,
    });
    relay.start();
    try {
      await waitFor(async () => (seen.length >= 250 ? true : undefined), 20_000, '250 events');
      expect(seen).toEqual(Array.from({ length: 250 }, (_, i) => i + 1));
    } finally {
      await relay.stop();
    }
  });

  it('enqueueOutboxAll writes many events in one statement, published in the order given, each with its headers and named as a change', async () => {
    await pool.query('DELETE FROM outbox');
    const context: RequestContext = { requestId: 'req-all', changes: [] };
    const events = Array.from({ length: 120 }, (_, i) => ({
      ...event(i + 1),
      change: i % 2 === 0,
      ...(i === 3 ? { headers: { 'x-own': 'kept' } } : {}),
    }));
    await runWithContext(context, () =>
      withTransaction(pool, async (tx) => {
        await enqueueOutbox(tx, schema, event(0));
        await enqueueOutboxAll(tx, schema, events);
        await enqueueOutboxAll(tx, schema, []);
        await enqueueOutbox(tx, schema, event(121));
      }),
    );
    expect(context.changes).toEqual(events.filter((e) => e.change).map((e) => e.id));
    const { rows } = await pool.query("SELECT payload->'n' AS n, headers FROM outbox ORDER BY seq");
    expect(rows.map((r) => Number(r.n))).toEqual(Array.from({ length: 122 }, (_, i) => i));
    expect(rows[4].headers).toEqual({ 'x-request-id': 'req-all', 'x-own': 'kept' });
    expect(rows[5].headers).toEqual({ 'x-request-id': 'req-all' });
    await pool.query('DELETE FROM outbox');
  });

  it('a pass that publishes costs two round trips: BEGIN with the lock and the read, then the mark with COMMIT', async () => {
    await pool.query('DELETE FROM outbox');
    const counted = createPool({ connectionString: PG_ADMIN_URL, schema, applicationName: 'test' });
    const sent: string[] = [];
    counted.on('connect', (client) => {
      const query = client.query.bind(client) as (...args: unknown[]) => unknown;
      (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
        sent.push(String(args[0]).replace(/\s+/g, ' ').slice(0, 40));
        return query(...args);
      };
    });
    await withTransaction(pool, async (tx) => {
      for (let n = 1; n <= 3; n++) await enqueueOutbox(tx, schema, event(n));
    });
    const published: number[] = [];
    const recording: OutboxPublisher = {
      async publish(_t, messages) {
        published.push(...messages.map((m) => JSON.parse(m.value).n as number));
      },
    };
    const relay = new OutboxRelay({ pool: counted, schema, publisher: recording, logger });
    try {
      await expect(relay.drain()).resolves.toBe(3);
      expect(published).toEqual([1, 2, 3]);
      expect(sent).toEqual([
        'BEGIN; SELECT pg_advisory_xact_lock(7304',
        `UPDATE "${schema}".outbox SET published_at = now()`.slice(0, 40),
      ]);
      expect(
        (await pool.query('SELECT count(*)::int AS n FROM outbox WHERE published_at IS NULL')).rows[0].n,
      ).toBe(0);
    } finally {
      await counted.end();
    }
  });

  it('keeps events while the broker is unreachable and publishes them afterwards', async () => {
    await pool.query('DELETE FROM outbox');
    await withTransaction(pool, (tx) => enqueueOutbox(tx, schema, event(7)));
    const sent: string[] = [];
    let brokerUp = false;
    const flaky: OutboxPublisher = {
      async publish(t, messages) {
        if (!brokerUp) throw new Error('broker unreachable');
        sent.push(...messages.map((m) => `${t}:${m.value}`));
      },
    };
    const relay = new OutboxRelay({ pool, schema, publisher: flaky, logger, intervalMs: 20 });
    relay.start();
    try {
      await waitFor(
        async () => {
          const { rows } = await pool.query('SELECT attempts FROM outbox WHERE published_at IS NULL');
          return rows[0]?.attempts >= 2 ? true : undefined;
        },
        10_000,
        'failed attempts recorded',
      );
      expect(sent).toEqual([]);
      brokerUp = true;
      await waitFor(async () => (sent.length ? true : undefined), 10_000, 'publish after recovery');
      expect(sent).toEqual([`${topic}:${JSON.stringify({ n: 7 })}`]);
    } finally {
      await relay.stop();
    }
  });

  it('a database connection lost during a publish fails that pass, not the process; the event goes out after', async () => {
    await pool.query('DELETE FROM outbox');
    await withTransaction(pool, (tx) => enqueueOutbox(tx, schema, event(8)));
    const db = await startTcpProxy(PG_ADMIN_URL);
    const proxied = createPool({
      connectionString: db.through(PG_ADMIN_URL),
      schema,
      applicationName: 'test',
    });
    proxied.on('error', () => undefined); // idle clients cut with the proxy
    // The first publish waits, holding the relay's database connection, until the test has cut it.
    const { publisher: slow, seen: sent, release } = holdingFirstPublish();
    const relay = new OutboxRelay({ pool: proxied, schema, publisher: slow, logger, intervalMs: 20 });
    relay.start();
    try {
      await waitFor(async () => release(), 10_000, 'a publish in progress');
      await db.cut();
      release()!();
      await waitFor(async () => (sent.length === 1 ? true : undefined), 10_000, 'the first publish');
      await db.restore();
      // Published, but not marked so before the connection went: published again (consumers dedupe by id).
      await waitFor(
        async () => {
          const { rows } = await pool.query('SELECT 1 FROM outbox WHERE published_at IS NULL');
          return rows.length === 0 ? true : undefined;
        },
        15_000,
        'the row marked published',
      );
      expect(sent).toEqual([8, 8]);
    } finally {
      await relay.stop();
      await proxied.end();
      await db.close();
    }
  });

  it('an event committed during a pass, whose wake came during it, goes right after that pass, not at the next poll', async () => {
    await pool.query('DELETE FROM outbox');
    await withTransaction(pool, (tx) => enqueueOutbox(tx, schema, event(1)));
    // The first pass is held in its publish, after it read the outbox, while the second event commits.
    const { publisher: held, seen, release } = holdingFirstPublish();
    // A poll far away: only the wake can bring event 2 out within the wait below.
    const relay = new OutboxRelay({ pool, schema, publisher: held, logger, intervalMs: 60_000 });
    relay.start();
    try {
      await waitFor(async () => release(), 10_000, 'the first pass publishing');
      await withTransaction(pool, (tx) => enqueueOutbox(tx, schema, event(2)));
      relay.wake(); // as a use case does once its transaction has committed
      release()!();
      await waitFor(async () => (seen.length >= 2 ? true : undefined), 5_000, 'the second event');
      expect(seen).toEqual([1, 2]);
    } finally {
      await relay.stop();
    }
  });

  it('two relays (two pods) publish every row once, in the order written', async () => {
    await pool.query('DELETE FROM outbox');
    await withTransaction(pool, async (tx) => {
      for (let n = 1; n <= 200; n++) await enqueueOutbox(tx, schema, event(n));
    });
    const seen: number[] = [];
    const recording: OutboxPublisher = {
      async publish(_t, messages) {
        // Every other batch is slow: a relay taking the next batch meanwhile would publish it first.
        const ns = messages.map((m) => JSON.parse(m.value).n as number);
        await new Promise((r) => setTimeout(r, ns[0]! % 40 === 1 ? 40 : 5));
        seen.push(...ns);
      },
    };
    const relays = [1, 2].map(
      () => new OutboxRelay({ pool, schema, publisher: recording, logger, intervalMs: 10, batchSize: 20 }),
    );
    relays.forEach((r) => r.start());
    try {
      await waitFor(async () => (seen.length >= 200 ? true : undefined), 20_000, '200 events');
      await new Promise((r) => setTimeout(r, 100));
      expect(seen).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    } finally {
      await Promise.all(relays.map((r) => r.stop()));
    }
  });

  it('rows backing off after a failed publish hold back what was written after them, so an outage never reorders events', async () => {
    await pool.query('DELETE FROM outbox');
    await withTransaction(pool, async (tx) => {
      for (let n = 1; n <= 3; n++) await enqueueOutbox(tx, schema, event(n));
    });
    // As a failed publish leaves them: an attempt recorded, due again in a moment.
    await pool.query(
      `UPDATE outbox SET attempts = 1, last_error = 'broker unreachable', available_at = now() + interval '1 second'`,
    );
    // Written afterwards, due at once: it must still go after 1-3.
    await withTransaction(pool, (tx) => enqueueOutbox(tx, schema, event(4)));
    const seen: number[] = [];
    const recording: OutboxPublisher = {
      async publish(_t, messages) {
        seen.push(...messages.map((m) => JSON.parse(m.value).n as number));
      },
    };
    const relay = new OutboxRelay({ pool, schema, publisher: recording, logger, intervalMs: 10 });
    relay.start();
    try {
      await waitFor(async () => (seen.length >= 4 ? true : undefined), 10_000, 'all four events');
      expect(seen).toEqual([1, 2, 3, 4]);
    } finally {
      await relay.stop();
    }
  });

  it('prunes published rows older than the retention, in chunks; newer and unpublished rows stay', async () => {
    await pool.query('DELETE FROM outbox');
    await withTransaction(pool, async (tx) => {
      for (let n = 1; n <= 12_000; n++) await enqueueOutbox(tx, schema, event(n));
    });
    const recording: OutboxPublisher = { publish: async () => undefined };
    const relay = new OutboxRelay({ pool, schema, publisher: recording, logger, batchSize: 5_000 });
    expect(await relay.drain()).toBe(12_000);
    // Published two hours ago, except 1-10 (just now); 11-20 never published (they still wait).
    await pool.query(
      `UPDATE outbox SET published_at = now() - interval '2 hours' WHERE (payload->>'n')::int > 20`,
    );
    await pool.query(`UPDATE outbox SET published_at = NULL WHERE (payload->>'n')::int BETWEEN 11 AND 20`);

    // An hour's retention: the 11,980 old rows go, over three statements (5,000 a chunk).
    const pruned = await new OutboxRelay({
      pool,
      schema,
      publisher: recording,
      logger,
      retentionMs: 3_600_000,
    }).prune();

    expect(pruned).toBe(11_980);
    const { rows } = await pool.query<{ n: number; published: boolean }>(
      `SELECT (payload->>'n')::int AS n, published_at IS NOT NULL AS published FROM outbox ORDER BY seq`,
    );
    expect(rows).toEqual(Array.from({ length: 20 }, (_, i) => ({ n: i + 1, published: i < 10 })));
  });

  it("reads the pending count and the oldest pending row's age (flowboard_outbox_oldest_seconds), published rows aside", async () => {
    const own = `outbox_age_${uniqueSuffix()}`;
    await admin.query(`CREATE SCHEMA ${own}`);
    try {
      await admin.query(OUTBOX_DDL(own));
      await expect(readPending(admin, `${own}.outbox`)).resolves.toEqual({ count: 0, oldestSeconds: 0 });
      await admin.query(
        `INSERT INTO ${own}.outbox (id, topic, key, payload, created_at, published_at) VALUES
           (gen_random_uuid(), 't', 'k', '{}', now() - interval '1 hour', now()),
           (gen_random_uuid(), 't', 'k', '{}', now() - interval '90 seconds', NULL),
           (gen_random_uuid(), 't', 'k', '{}', now() - interval '5 seconds', NULL)`,
      );
      const { count, oldestSeconds } = await readPending(admin, `${own}.outbox`);
      expect(count).toBe(2);
      expect(oldestSeconds).toBeGreaterThanOrEqual(90);
      expect(oldestSeconds).toBeLessThan(120);
    } finally {
      await admin.query(`DROP SCHEMA ${own} CASCADE`);
    }
  });
});
