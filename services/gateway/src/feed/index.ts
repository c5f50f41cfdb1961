// The change stream's source (docs/design.md, "The change stream"): the replica's reader of Kafka's change topic,
// which fills the stream's hub, and Kafka's history for older resumes.
import { createKafka, kafkaSecurity } from '@flowboard/messaging';
import {
  gaugesOfOneRead,
  histogram,
  LATENCY_BUCKETS,
  type Logger,
  type MetricsRegistry,
} from '@flowboard/service-kit';
import type { MembershipClient } from '../clients/membership.client';
import type { GatewayConfig } from '../config';
import { ChangeFeed } from './change-feed';
import { recentNames } from './recent-names';
import type { NameLookup } from './render';

export { ChangeFeed } from './change-feed';
export type { NameLookup } from './render';

/**
 * How long the feed reuses a project's names (recent-names.ts): a rename shows in the stream this much later at most.
 */
const NAMES_TTL_MS = 1_000;

/** The feed the configuration asks for; undefined without KAFKA_BROKERS (the stream then answers 503). */
export function createChangeFeed(
  config: GatewayConfig,
  membership: MembershipClient,
  logger: Logger,
  metrics: MetricsRegistry,
): ChangeFeed | undefined {
  if (!config.KAFKA_BROKERS?.length) return undefined;
  const feedLag = histogram(metrics, {
    name: 'flowboard_stream_feed_lag_seconds',
    help: "From a change's append to Kafka to its fan-out to this replica's subscribers (reading, names, rendering)",
    buckets: [...LATENCY_BUCKETS, 30, 60, 300],
  });
  const kafka = createKafka({
    brokers: config.KAFKA_BROKERS,
    clientId: 'gateway-stream',
    logger,
    ...kafkaSecurity(config),
  });
  const feed = new ChangeFeed({
    kafka,
    names: recentNames(membershipNames(membership), { ttlMs: NAMES_TTL_MS, maxProjects: 10_000 }),
    logger: logger.child({ component: 'change-stream' }),
    ring: { maxEvents: config.STREAM_RING_EVENTS, maxBytes: config.STREAM_RING_MB * 1024 * 1024 },
    queue: { maxEvents: config.STREAM_QUEUE_EVENTS, maxBytes: config.STREAM_QUEUE_KB * 1024 },
    historyReads: config.STREAM_HISTORY_READS,
    fetch: { maxWaitMs: config.STREAM_FETCH_WAIT_MS },
    retentionMs: config.STREAM_RETENTION_HOURS > 0 ? config.STREAM_RETENTION_HOURS * 3_600_000 : undefined,
    onFannedOut: (seconds) => feedLag.observe(seconds),
  });
  observeStream(feed, metrics, logger);
  return feed;
}

/** The stream's state on the metrics port, read from the hub at scrape time (0 while it does not serve yet). */
function observeStream(feed: ChangeFeed, metrics: MetricsRegistry, logger: Logger): void {
  const stats = () => feed.hub()?.stats();
  gaugesOfOneRead(metrics, {
    read: async () => stats(),
    onError: (err) => logger.warn({ err }, 'change stream metrics not read'),
    reuseMs: 0,
    gauges: [
      {
        name: 'flowboard_stream_serving',
        help: 'Whether this replica serves the change stream (1): its feed has read what Kafka held at its start',
        value: (s) => (s ? 1 : 0),
      },
      {
        name: 'flowboard_stream_subscribers',
        help: 'Open change stream subscriptions on this replica (SSE connections and waiting long-polls)',
        value: (s) => s?.subscribers ?? 0,
      },
      {
        name: 'flowboard_stream_dropped_slow',
        help: 'Change stream clients closed since the start because they could not keep up (each resumes by its position)',
        value: (s) => s?.droppedSlow ?? 0,
      },
      {
        name: 'flowboard_stream_history_reads',
        help: "Change stream subscriptions reading Kafka's history right now (resumes older than the ring)",
        value: (s) => s?.historyReads ?? 0,
      },
      {
        name: 'flowboard_stream_ring_events',
        help: 'Events the change stream keeps in memory on this replica, all partitions',
        value: (s) => (s?.partitions ?? []).reduce((n, p) => n + p.events, 0),
      },
    ],
  });
}

/** membership's ResolveNames (no caller: the names of a change, read once per replica, not per subscriber). */
function membershipNames(membership: MembershipClient): NameLookup {
  return {
    async resolve(projectId, userIds) {
      const answer = await membership.resolveNames({ project_id: projectId, user_ids: userIds });
      return {
        projectName: answer.project_name,
        users: new Map(answer.users.map((user) => [user.id, user])),
      };
    },
  };
}
