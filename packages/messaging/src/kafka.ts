import { Kafka, logLevel } from 'kafkajs';
import type { Logger } from '@flowboard/service-kit';
import { fixKafkajsIdleLoop } from './kafkajs-idle-fix';

export function createKafka(options: { brokers: string[]; clientId: string; logger: Logger }): Kafka {
  const log = options.logger.child({ component: 'kafka' });
  if (!fixKafkajsIdleLoop())
    log.warn('kafkajs is not 2.2.4: its idle timer loop is not patched (kafkajs-idle-fix.ts)');
  return new Kafka({
    clientId: options.clientId,
    brokers: options.brokers,
    // Back-off capped at 5 s (kafkajs's default cap is 30 s): after a broker restart, producers and consumers
    // reconnect within seconds instead of sleeping through half a minute of a working broker.
    retry: { initialRetryTime: 300, retries: 8, maxRetryTime: 5_000 },
    logLevel: logLevel.WARN,
    logCreator: () => (entry) => {
      const { message, ...extra } = entry.log;
      if (entry.level <= logLevel.ERROR) log.error(extra, message);
      else log.warn(extra, message);
    },
  });
}

/** Creates topics that do not exist yet (idempotent); run at start by producers and consumers. */
export async function ensureTopics(kafka: Kafka, topics: string[]): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    const missing = topics.filter((t) => !existing.has(t));
    if (missing.length) {
      await admin.createTopics({
        topics: missing.map((topic) => ({ topic, numPartitions: 3 })),
        waitForLeaders: true,
      });
    }
  } finally {
    await admin.disconnect();
  }
}
