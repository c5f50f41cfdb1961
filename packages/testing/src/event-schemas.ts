import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import { OPEN_ENUM } from '@flowboard/events';

/**
 * Checks a message a producer published (or wrote to its outbox) against its topic's JSON Schema, the contract
 * its consumers rely on (`@flowboard/events/schemas/<topic>.json`, docs/design.md "Contracts between teams").
 * The shared readers (`changeEventsInOutbox`, `tailTopic`) call it on every message they read, so each producer's
 * integration tests check what it really publishes; tests that read other topics call it themselves.
 */
const schemasDir = path.join(path.dirname(require.resolve('@flowboard/events/package.json')), 'schemas');
// Formats are annotations here: zod writes a `pattern` beside each (uuid, date-time, email), which is the check.
const ajv = new Ajv2020({ strict: true, allErrors: true, validateFormats: false });
// What the producer checked is what its schema says: an open enum's values are a producer's closed list; the marker
// is a consumers' promise (they skip an unknown value), an annotation to Ajv.
ajv.addKeyword({ keyword: OPEN_ENUM, schemaType: 'boolean' });
const validators = new Map<string, ValidateFunction>();

/** Whether the topic has a schema (a dead-letter topic, for one, has none of its own). */
export function hasTopicSchema(topic: string): boolean {
  return existsSync(path.join(schemasDir, `${topic}.json`));
}

/** Throws, naming the topic and every violation, unless `message` (parsed JSON, or its text) is valid. */
export function assertMatchesTopicSchema(topic: string, message: unknown): void {
  let validate = validators.get(topic);
  if (!validate) {
    const file = path.join(schemasDir, `${topic}.json`);
    if (!existsSync(file)) {
      throw new Error(
        `no JSON Schema for topic ${topic} (${file}): add the event to ALL_EVENTS in @flowboard/events`,
      );
    }
    validate = ajv.compile(JSON.parse(readFileSync(file, 'utf8')));
    validators.set(topic, validate);
  }
  const value =
    typeof message === 'string' || Buffer.isBuffer(message) ? JSON.parse(message.toString()) : message;
  if (!validate(value)) {
    const errors = (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`).join('; ');
    throw new Error(
      `a message on ${topic} breaks its schema: ${errors}\n${JSON.stringify(value).slice(0, 500)}`,
    );
  }
}
