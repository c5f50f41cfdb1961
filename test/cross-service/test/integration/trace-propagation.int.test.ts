import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { inviteCreatedV1 } from '@flowboard/events';
import {
  createApp as createMembershipApp,
  configSchema as membershipConfigSchema,
} from '@flowboard/membership';
import type { MembershipApp } from '@flowboard/membership';
import { createKafka, ensureTopics } from '@flowboard/messaging';
import { configSchema, createApp, type NotifierApp } from '@flowboard/notifier';
import { createPool, migrate } from '@flowboard/pg-kit';
import { loadMembershipProto, type membership } from '@flowboard/proto';
import { contextToMetadata, createLogger, loadConfig } from '@flowboard/service-kit';
import {
  deleteMailTo,
  installInMemoryTracing,
  metricSamples,
  metricValue,
  requireEnv,
  traceparent,
  uniqueSuffix,
  waitFor,
  waitForMail,
  type InMemoryTracing,
  type ReadableSpan,
} from '@flowboard/testing';

/**
 * One invite, one trace: a caller's traceparent in gRPC metadata → membership's CreateInvite → the outbox row →
 * the relay's Kafka message → the notifier's consumer → the SMTP send. Both services run in this process against
 * the real PostgreSQL, Kafka, Redis and mail sink, with an in-memory span exporter.
 */
jest.setTimeout(90_000);

const env = requireEnv('MEMBERSHIP_DATABASE_URL', 'KAFKA_BROKERS', 'REDIS_URL', 'SMTP_URL', 'MAILPIT_URL');
const logger = createLogger('trace-test', process.env.LOG_LEVEL ?? 'silent');
const CALLER_TRACE_ID = uniqueSuffix()
  .replace(/[^0-9a-f]/g, '')
  .padEnd(32, 'a')
  .slice(0, 32);
const CALLER_SPAN_ID = 'b7ad6b7169203331';
const group = `notifier-trace-${uniqueSuffix()}`;

let tracing: InMemoryTracing;
let membershipApp: MembershipApp;
let notifier: NotifierApp;
let client: membership.MembershipServiceClient;
const recipients: string[] = [];

/** Calls membership as `userId`, with extra metadata (a traceparent), within a deadline. */
function call<Res>(method: string, request: object, userId?: number, extra: Record<string, string> = {}) {
  const metadata = contextToMetadata(userId === undefined ? { requestId: 't' } : { requestId: 't', userId });
  for (const [k, v] of Object.entries(extra)) metadata.set(k, v);
  const fn = (client as unknown as Record<string, (...args: unknown[]) => void>)[method] as (
    ...args: unknown[]
  ) => void;
  return new Promise<Res>((resolve, reject) =>
    fn.call(client, request, metadata, { deadline: Date.now() + 10_000 }, (err: Error | null, res: Res) =>
      err ? reject(err) : resolve(res),
    ),
  );
}

/** A new consumer group that starts at the topic's end: only this test's events reach this notifier. */
async function groupAtEnd(groupId: string): Promise<void> {
  const kafka = createKafka({ brokers: env.KAFKA_BROKERS.split(','), clientId: 'trace-test', logger });
  await ensureTopics(kafka, [inviteCreatedV1.topic]);
  const admin = kafka.admin();
  await admin.connect();
  try {
    const ends = await admin.fetchTopicOffsets(inviteCreatedV1.topic);
    await admin.setOffsets({
      groupId,
      topic: inviteCreatedV1.topic,
      partitions: ends.map((p) => ({ partition: p.partition, offset: p.high })),
    });
  } finally {
    await admin.disconnect();
  }
}

beforeAll(async () => {
  tracing = installInMemoryTracing();

  const pool = createPool({
    connectionString: env.MEMBERSHIP_DATABASE_URL,
    schema: 'membership',
    applicationName: 't',
    max: 1,
  });
  await migrate(pool, {
    schema: 'membership',
    dir: path.join(__dirname, '../../../../services/membership/migrations'),
  });
  await pool.end();
  membershipApp = createMembershipApp(
    loadConfig(membershipConfigSchema, {
      GRPC_PORT: '0',
      METRICS_PORT: '0',
      DATABASE_URL: env.MEMBERSHIP_DATABASE_URL,
      KAFKA_BROKERS: env.KAFKA_BROKERS,
      OUTBOX_INTERVAL_MS: '100',
    }),
    { logger },
  );
  const port = await membershipApp.start();
  const { MembershipService } = loadMembershipProto().flowboard.membership.v1;
  client = new MembershipService(`127.0.0.1:${port}`, grpc.credentials.createInsecure());

  await groupAtEnd(group);
  notifier = createApp(
    loadConfig(configSchema, {
      HTTP_PORT: '0',
      METRICS_PORT: '0',
      KAFKA_BROKERS: env.KAFKA_BROKERS,
      KAFKA_GROUP_ID: group,
      REDIS_URL: env.REDIS_URL,
      SMTP_URL: env.SMTP_URL,
    }),
    { logger },
  );
  const healthPort = await notifier.start();
  await waitFor(
    async () => ((await fetch(`http://127.0.0.1:${healthPort}/readyz`)).status === 200 ? true : undefined),
    30_000,
    'the notifier to join its group',
  );
});

afterAll(async () => {
  client?.close();
  await notifier?.stop();
  await membershipApp?.stop();
  await tracing?.shutdown();
  await Promise.all(recipients.map((to) => deleteMailTo(env.MAILPIT_URL, to)));
});

const inTrace = (name: string): ReadableSpan[] =>
  tracing.spans(name).filter((s) => s.spanContext().traceId === CALLER_TRACE_ID);

describe('trace context from the API call to the SMTP send', () => {
  it('makes the invite e-mail’s SMTP send a span of the caller’s trace, through the outbox and Kafka', async () => {
    const suffix = uniqueSuffix();
    const { user: owner } = await call<membership.SignUpResponse__Output>('SignUp', {
      name: 'Lucille Bluth',
      user_name: `lucille-${suffix}`,
      email: `lucille-${suffix}@example.test`,
    });
    const { project } = await call<membership.CreateProjectResponse__Output>(
      'CreateProject',
      { name: 'Balboa Towers' },
      owner!.id,
    );
    const { roles } = await call<membership.GetProjectResponse__Output>(
      'GetProject',
      { project_id: project!.id, include_roles: true },
      owner!.id,
    );
    const email = `buster-${suffix}@example.test`;
    recipients.push(email);

    await call(
      'CreateInvite',
      { project_id: project!.id, email, role_id: roles.find((r) => r.name === 'Members')!.id },
      owner!.id,
      { traceparent: traceparent(CALLER_TRACE_ID, CALLER_SPAN_ID) },
    );
    await waitForMail(env.MAILPIT_URL, email, 30_000);
    const [smtp] = await waitFor(
      async () => (inTrace('smtp send').length ? inTrace('smtp send') : undefined),
      10_000,
      'the SMTP span',
    );

    // The chain, child to parent: SMTP send → consume → publish (relay) → CreateInvite (server) → the caller.
    const [consume] = inTrace(`process ${inviteCreatedV1.topic}`);
    const [publish] = inTrace(`publish ${inviteCreatedV1.topic}`);
    const [server] = inTrace('flowboard.membership.v1.MembershipService/CreateInvite');
    expect(smtp!.parentSpanContext?.spanId).toBe(consume?.spanContext().spanId);
    expect(consume!.parentSpanContext?.spanId).toBe(publish?.spanContext().spanId);
    expect(publish!.parentSpanContext?.spanId).toBe(server?.spanContext().spanId);
    expect(server!.parentSpanContext?.spanId).toBe(CALLER_SPAN_ID);
    expect(consume!.attributes['messaging.consumer.group.name']).toBe(group);

    // No address, token or key in any span of the trace.
    const everything = JSON.stringify(
      tracing.exporter
        .getFinishedSpans()
        .map((s) => ({ name: s.name, attributes: s.attributes, events: s.events })),
    );
    expect(everything).not.toContain('example.test');
  });

  it('counts what happened on the metrics ports', async () => {
    const scrape = async (port: number) => (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    const m = await scrape(membershipApp.metricsPort());
    const createInvite = {
      service: 'membership',
      grpc_service: 'flowboard.membership.v1.MembershipService',
      grpc_method: 'CreateInvite',
      grpc_code: 'OK',
    };
    expect(metricValue(m, 'flowboard_grpc_server_handled_total', createInvite)).toBe(1);
    expect(metricValue(m, 'flowboard_grpc_server_handling_seconds_count', createInvite)).toBe(1);
    expect(metricValue(m, 'flowboard_outbox_backlog', { service: 'membership' })).toBe(0);
    expect(metricValue(m, 'flowboard_pg_pool_size', { service: 'membership' })).toBeGreaterThan(0);
    expect(metricValue(m, 'flowboard_pg_pool_idle', { service: 'membership' })).toBeGreaterThanOrEqual(0);
    expect(metricValue(m, 'flowboard_pg_pool_waiting', { service: 'membership' })).toBe(0);
    expect(metricValue(m, 'process_resident_memory_bytes', { service: 'membership' })).toBeGreaterThan(0);

    const n = await scrape(notifier.metricsPort());
    expect(metricValue(n, 'flowboard_notifier_emails_sent_total', { service: 'notifier' })).toBe(1);
    expect(metricValue(n, 'flowboard_notifier_emails_failed_total', { service: 'notifier' })).toBe(0);
    const lag = metricSamples(n, 'flowboard_kafka_consumer_lag').filter((s) => s.labels.group === group);
    expect(lag.length).toBeGreaterThan(0); // the partition the invite went to
    expect(lag.every((s) => s.labels.topic === inviteCreatedV1.topic && s.value === 0)).toBe(true);
    expect((await fetch(`http://127.0.0.1:${notifier.metricsPort()}/other`)).status).toBe(404);
  });
});
