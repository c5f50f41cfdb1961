import { AsyncResource } from 'node:async_hooks';
import type pg from 'pg';
import {
  counter,
  contextWithSpan,
  currentContext,
  recordChange,
  extractTraceContext,
  failSpan,
  gaugesOfOneRead,
  injectTraceContext,
  settlesWithin,
  SHUTDOWN_STEP_TIMEOUT_MS,
  SpanKind,
  tracer,
  type Logger,
  type MetricsRegistry,
  type Span,
} from '@flowboard/service-kit';
import type { OutboxMessage } from '@flowboard/events';
import type { Queryable } from './pool';
import { quoteIdent } from './pool';

/*
 * The DDL every publishing service includes in its migrations (as `NNNN_outbox.sql`):
 *
 *   CREATE TABLE outbox (
 *     id uuid PRIMARY KEY, topic text NOT NULL, key text NOT NULL, payload jsonb NOT NULL,
 *     headers jsonb NOT NULL DEFAULT '{}', created_at timestamptz NOT NULL DEFAULT now(),
 *     available_at timestamptz NOT NULL DEFAULT now(), published_at timestamptz,
 *     attempts integer NOT NULL DEFAULT 0, last_error text,
 *     seq bigint GENERATED ALWAYS AS IDENTITY);
 *   CREATE INDEX outbox_pending ON outbox (available_at, created_at) WHERE published_at IS NULL;
 *
 * `seq` is the publishing order: the order the rows were written in. `created_at` cannot be: it is the time
 * the transaction started, the same for every event one transaction writes (and a transaction that waited for
 * a lock may have started before the one it waited for). Outboxes made before `seq` got it as a nullable column
 * with a sequence default (no rewrite); their older rows, without one, go first.
 */

/**
 * Adds an event in the caller's transaction, so it is published if and only if the state change commits. The
 * active trace context (W3C `traceparent`/`tracestate`) is stored with it in `headers`, so the relay, running
 * later and outside the request, publishes the event as part of the request's trace; so is the request's id
 * (`x-request-id`, unless the event names one), so use cases need not carry it to every event they write.
 */
export async function enqueueOutbox(tx: Queryable, schema: string, event: OutboxMessage): Promise<void> {
  await tx.query(
    // Named: prepared once per connection, as most writes run it (unnamed, PostgreSQL parsed and planned it for
    // every write). The name holds the schema, since a connection keeps one text per name.
    {
      name: `outbox-insert-${schema}`,
      text: `INSERT INTO ${quoteIdent(schema)}.outbox (id, topic, key, payload, headers) VALUES ($1, $2, $3, $4, $5)`,
    },
    [event.id, event.topic, event.key, JSON.stringify(event.payload), JSON.stringify(storedHeaders(event))],
  );
  // Named in the write's answer; forgotten again if the transaction rolls back (withTransaction).
  if (event.change) recordChange(event.id);
}

/**
 * Adds several events in ONE statement (a bulk write's: one round trip, not one per event), as `enqueueOutbox`
 * would add each; they are published in the order given (`seq` follows the rows' order).
 */
export async function enqueueOutboxAll(
  tx: Queryable,
  schema: string,
  events: readonly OutboxMessage[],
): Promise<void> {
  if (events.length === 0) return;
  const column = <T>(pick: (event: OutboxMessage) => T) => events.map(pick);
  await tx.query(
    `INSERT INTO ${quoteIdent(schema)}.outbox (id, topic, key, payload, headers)
     SELECT id, topic, key, payload::jsonb, headers::jsonb
     FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[]) WITH ORDINALITY
          AS e(id, topic, key, payload, headers, ord)
     ORDER BY ord`,
    [
      column((e) => e.id),
      column((e) => e.topic),
      column((e) => e.key),
      column((e) => JSON.stringify(e.payload)),
      column((e) => JSON.stringify(storedHeaders(e))),
    ],
  );
  for (const event of events) if (event.change) recordChange(event.id);
}

/** What is stored with an event besides its own headers: the request's id and the active trace context. */
function storedHeaders(event: OutboxMessage): Record<string, string> {
  const requestId = currentContext()?.requestId;
  return injectTraceContext({
    ...(requestId ? { 'x-request-id': requestId } : {}),
    ...event.headers,
  });
}

/**
 * One producer span per event, child of the context stored with it; the message's headers carry the span's own
 * context, so the consumer's span is a child of the publish. Without a tracing SDK the headers pass unchanged.
 */
export function startPublishSpan(
  topic: string,
  stored: Record<string, string>,
): { span: Span; headers: Record<string, string> } {
  const parent = extractTraceContext(stored);
  const span = tracer().startSpan(
    `publish ${topic}`,
    {
      kind: SpanKind.PRODUCER,
      attributes: {
        'messaging.system': 'kafka',
        'messaging.operation.type': 'send',
        'messaging.destination.name': topic,
      },
    },
    parent,
  );
  return { span, headers: injectTraceContext({ ...stored }, contextWithSpan(span, parent)) };
}

export interface OutboxPublisher {
  publish(
    topic: string,
    messages: Array<{ key: string; value: string; headers?: Record<string, string> }>,
  ): Promise<void>;
}

export interface OutboxRelayOptions {
  pool: pg.Pool;
  schema: string;
  publisher: OutboxPublisher;
  logger: Logger;
  intervalMs?: number;
  batchSize?: number;
  /**
   * How long a published row stays in the outbox (default an hour): long enough to look up what went out, and
   * then deleted, since Kafka holds the event. Without this an outbox grows by every event ever published (about
   * 1 KB each: 40 GB a day at 500 writes a second).
   */
  retentionMs?: number;
  /** How often the relay deletes the published rows older than `retentionMs` (default a minute); 0: never. */
  pruneIntervalMs?: number;
  /**
   * Gets `flowboard_outbox_backlog` (rows not yet published, counted at scrape time),
   * `flowboard_outbox_oldest_seconds` (the oldest of them's wait, read by the same query) and
   * `flowboard_outbox_pruned_total`.
   */
  metrics?: MetricsRegistry;
}

interface OutboxRow {
  id: string;
  topic: string;
  key: string;
  payload: unknown;
  headers: Record<string, string>;
  attempts: number;
}

/**
 * Publishes committed outbox rows, oldest first. One relay publishes at a time (a transaction-level advisory lock
 * per outbox; the relays of the other pods wait for it), and a failed batch holds back everything after it (its
 * rows back off, and nothing is published while the oldest row waits): so events leave in the order they were
 * written, across replicas and across a Kafka outage, which webhooks' per-story order relies on. A failed batch
 * stays unpublished with a growing back-off, so an outage delays events but loses none. The price is that a row
 * Kafka refuses for good (none does today: the events are small) would hold up its outbox; the
 * `flowboard_outbox_backlog` gauge shows that.
 */
/** The first key of the relays' advisory locks (the second is the outbox table's name, hashed). */
const OUTBOX_LOCK_CLASS = 0x6f7574; // 'out'
/** Published rows deleted per statement: each delete is short, and a backlog of old rows goes over many. */
const PRUNE_CHUNK = 5_000;

export class OutboxRelay {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;
  /** Woken during a pass: what committed after the pass read the outbox is published by a pass right after it. */
  private wokenDuringPass = false;
  private readonly table: string;
  private readonly intervalMs: number;
  private readonly batchSize: number;
  private readonly retentionMs: number;
  private pruneTimer: NodeJS.Timeout | undefined;
  private pruning: Promise<number> | undefined;
  /** Set by stop(): a prune in progress ends after its current chunk. */
  private pruneHalted = false;
  private countPruned: (rows: number) => void = () => undefined;

  constructor(private readonly options: OutboxRelayOptions) {
    this.table = `${quoteIdent(options.schema)}.outbox`;
    this.intervalMs = options.intervalMs ?? 250;
    this.batchSize = options.batchSize ?? 100;
    if (!Number.isSafeInteger(this.batchSize) || this.batchSize < 1)
      throw new Error(`outbox relay: batchSize must be a whole number from 1, not ${this.batchSize}`);
    this.retentionMs = options.retentionMs ?? 3_600_000;
    if (options.metrics) {
      this.observeBacklog(options.metrics);
      const pruned = counter(options.metrics, {
        name: 'flowboard_outbox_pruned_total',
        help: 'Published outbox events deleted once older than the retention (they are on Kafka)',
      });
      this.countPruned = (rows) => pruned.inc(rows);
    }
  }

  /**
   * `flowboard_outbox_backlog` and `flowboard_outbox_oldest_seconds`, read at scrape time by one query over the
   * partial index outbox_pending (it holds exactly the unpublished rows, with their created_at: an index-only scan),
   * which both gauges share: the registry collects them together, and a scrape runs it once.
   */
  private observeBacklog(registry: MetricsRegistry): void {
    const { pool, logger } = this.options;
    gaugesOfOneRead(registry, {
      read: () => readPending(pool, this.table),
      // The gauges keep their last values.
      onError: (err) => logger.warn({ err }, 'could not count the outbox backlog'),
      gauges: [
        {
          name: 'flowboard_outbox_backlog',
          help: 'Outbox events committed but not yet published to Kafka',
          value: (pending) => pending.count,
        },
        {
          name: 'flowboard_outbox_oldest_seconds',
          help: 'How long the oldest outbox event not yet published to Kafka has waited since it was written (0: none waits)',
          value: (pending) => pending.oldestSeconds,
        },
      ],
    });
  }

  start(): void {
    this.stopped = false;
    this.pruneHalted = false;
    this.schedule(0);
    const pruneIntervalMs = this.options.pruneIntervalMs ?? 60_000;
    if (pruneIntervalMs > 0) {
      this.pruneTimer = setInterval(() => {
        this.prune().catch((err: unknown) =>
          this.options.logger.warn({ err }, 'outbox prune failed; the next one retries'),
        );
      }, pruneIntervalMs);
      this.pruneTimer.unref();
    }
  }

  /**
   * Deletes the published rows older than the retention, a chunk per statement, and answers how many. Not under
   * the relays' advisory lock: a published row is never read or written by a pass again, and two replicas pruning
   * at once only find each other's rows gone. (No index on `published_at`: building one on a large outbox would
   * block its writes during an upgrade; the delete reads the table instead, which stays about one retention long.)
   */
  prune(): Promise<number> {
    return (this.pruning ??= (async () => {
      let removed = 0;
      try {
        for (;;) {
          const { rowCount } = await this.options.pool.query(
            `DELETE FROM ${this.table} WHERE id = ANY(ARRAY(
               SELECT id FROM ${this.table}
               WHERE published_at < now() - $1::double precision * interval '1 millisecond' LIMIT $2))`,
            [this.retentionMs, PRUNE_CHUNK],
          );
          removed += rowCount ?? 0;
          this.countPruned(rowCount ?? 0);
          if ((rowCount ?? 0) < PRUNE_CHUNK || this.pruneHalted) break;
        }
      } finally {
        this.pruning = undefined;
        if (removed > 0) this.options.logger.info({ removed }, 'published outbox events pruned');
      }
      return removed;
    })());
  }

  /**
   * Publish soon, e.g. right after a transaction that enqueued an event. Bound to the context the relay was made in
   * (the composition root), not that of the request that wakes it: its passes must not run, log or trace as part of
   * that request. A plain function, so it can be handed to use cases as their `signal`.
   */
  readonly wake: () => void = AsyncResource.bind(() => {
    if (this.stopped) return;
    if (this.running) this.wokenDuringPass = true;
    else this.schedule(0);
  });

  async stop(): Promise<void> {
    this.stopped = true;
    this.pruneHalted = true;
    if (this.timer) clearTimeout(this.timer);
    clearInterval(this.pruneTimer);
    await Promise.all([this.running, this.pruning?.catch(() => undefined)]);
  }

  /** Publishes until nothing is due; returns how many rows were published. */
  async drain(): Promise<number> {
    let total = 0;
    for (;;) {
      const n = await this.publishBatch();
      total += n;
      if (n < this.batchSize) return total;
    }
  }

  private schedule(delay: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.wokenDuringPass = false;
      this.running = this.drain()
        .then(
          () => undefined,
          (err: unknown) => this.options.logger.warn({ err }, 'outbox relay pass failed'),
        )
        .finally(() => {
          this.running = undefined;
          if (!this.stopped) this.schedule(this.wokenDuringPass ? 0 : this.intervalMs);
        });
    }, delay);
  }

  private async publishBatch(): Promise<number> {
    const client = await this.options.pool.connect();
    // The pool stops listening for a client's errors while it is checked out, and this one is held across the
    // publish, with no query running: a connection lost then would be an unhandled 'error' event (the process
    // would crash on a database blip). The next query fails with it instead, and the pass with that.
    const onError = (err: Error) => this.options.logger.warn({ err }, 'outbox relay lost its connection');
    client.on('error', onError);
    try {
      // BEGIN, the relays' lock and the pending rows in one round trip (a pass follows every write, so each round
      // trip counts): nothing in them is input but the table's quoted name and the batch size, a checked integer.
      // The lock is held to COMMIT: another relay's batch can neither overtake this one nor be overtaken by it.
      const begun = (await client.query(
        `BEGIN;
         SELECT pg_advisory_xact_lock(${OUTBOX_LOCK_CLASS}, hashtext('${this.table}'));
         SELECT id, topic, key, payload, headers, attempts, available_at <= now() AS due FROM ${this.table}
          WHERE published_at IS NULL
          ORDER BY seq NULLS FIRST, created_at LIMIT ${this.batchSize} FOR UPDATE`,
      )) as unknown as Array<pg.QueryResult<OutboxRow & { due: boolean }>>;
      const rows = begun[2]?.rows;
      if (!rows) throw new Error('outbox relay: the pass read no rows');
      // Nothing pending, or the oldest is backing off after a failure: later rows wait behind it.
      if (rows.length === 0 || !rows[0]!.due) {
        await client.query('COMMIT');
        return 0;
      }
      const spans: Span[] = [];
      try {
        for (const [topic, batch] of groupByTopic(rows)) {
          const messages = batch.map((r) => {
            const { span, headers } = startPublishSpan(topic, r.headers);
            spans.push(span);
            return { key: r.key, value: JSON.stringify(r.payload), headers };
          });
          await this.options.publisher.publish(topic, messages);
        }
        spans.forEach((span) => span.end());
      } catch (err) {
        spans.forEach((span) => {
          failSpan(span, err);
          span.end();
        });
        // Back off exponentially (capped at 10 s, so delivery resumes soon after an outage) and keep the rows.
        await client.query(
          `UPDATE ${this.table} SET attempts = attempts + 1, last_error = $2,
                  available_at = now() + least(interval '10 seconds', interval '200 milliseconds' * power(2, attempts))
            WHERE id = ANY($1::uuid[])`,
          [rows.map((r) => r.id), String((err as Error).message).slice(0, 500)],
        );
        await client.query('COMMIT');
        this.options.logger.warn({ err, rows: rows.length }, 'outbox publish failed; will retry');
        return 0;
      }
      // Marked and committed in one round trip: the ids are the rows' own uuids, checked before they go in.
      await client.query(
        `UPDATE ${this.table} SET published_at = now() WHERE id = ANY('{${rows.map((r) => uuid(r.id)).join(',')}}'::uuid[]);
         COMMIT`,
      );
      return rows.length;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.off('error', onError);
      client.release();
    }
  }
}

/** A uuid as PostgreSQL printed it, to be written into a statement's text; anything else is refused. */
function uuid(id: string): string {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id))
    throw new Error('outbox relay: a row id is not a uuid');
  return id;
}

/** The outbox's unpublished rows: how many, and the age of the oldest (seconds, 0 when there is none). */
export async function readPending(
  db: Queryable,
  table: string,
): Promise<{ count: number; oldestSeconds: number }> {
  const { rows } = await db.query<{ n: number; oldest: number }>(
    `SELECT count(*)::int AS n,
            coalesce(extract(epoch FROM now() - min(created_at)), 0)::float8 AS oldest
       FROM ${table} WHERE published_at IS NULL`,
  );
  return { count: rows[0]?.n ?? 0, oldestSeconds: Math.max(0, rows[0]?.oldest ?? 0) };
}

function groupByTopic(rows: OutboxRow[]): Map<string, OutboxRow[]> {
  const byTopic = new Map<string, OutboxRow[]>();
  for (const row of rows) byTopic.set(row.topic, [...(byTopic.get(row.topic) ?? []), row]);
  return byTopic;
}

/** How long shutdown lets an outbox pass finish before abandoning it (an unreachable broker retries for minutes). */
const RELAY_GRACE_MS = 3_000;

/** A publisher that shutdown can cut short (`close` fails publishes in flight) and disconnect. */
export interface ClosableOutboxPublisher extends OutboxPublisher {
  close(): void;
  disconnect(): Promise<void>;
}

/**
 * The outbox half of a service's stop(), every step bounded: stop the relay, giving a pass in flight a grace
 * period; then fail a pass stuck on an unreachable broker, so it releases its connection (its rows go after a
 * restart); then disconnect the producer. Resolves whether the relay let go of its database connection: only then
 * may the caller end the pool, since pool.end() waits for checked-out clients.
 */
export async function stopOutbox(
  relay: OutboxRelay,
  publisher: ClosableOutboxPublisher,
  logger: Logger,
): Promise<boolean> {
  const relayStopped = relay.stop();
  if (!(await settlesWithin(relayStopped, RELAY_GRACE_MS))) {
    logger.warn(
      'outbox relay still publishing at shutdown (Kafka unreachable?); its batch stays in the outbox',
    );
  }
  publisher.close();
  const released = await settlesWithin(relayStopped, SHUTDOWN_STEP_TIMEOUT_MS);
  if (!(await settlesWithin(publisher.disconnect(), SHUTDOWN_STEP_TIMEOUT_MS)))
    logger.warn('Kafka producer did not disconnect in time');
  return released;
}
