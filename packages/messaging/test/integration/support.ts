import { createLogger } from '@flowboard/service-kit';
import { createKafka } from '../../src';

// What the integration tests against the run's real broker share: its client, a silent logger, unique names.
const brokers = process.env.KAFKA_BROKERS;
if (!brokers) throw new Error('Missing KAFKA_BROKERS. Run the tests through `npm test`, which starts Kafka.');
export const logger = createLogger('messaging-test', 'silent');
export const kafka = createKafka({ brokers: brokers.split(','), clientId: 'messaging-test', logger });
export const suffix = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;

/** Resolves once `condition` holds; throws after `timeoutMs`, naming `what` was awaited. */
export async function until(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
