import { z } from 'zod';
import { envelopeSchema, type EventDefinition } from './envelope';
import { inviteCreatedV1 } from './membership';
import { projectDeletedV1 } from './project-deleted';
import { resourceChangedV1 } from './resource-changed';
import { storyDeletedV1 } from './story-deleted';

/**
 * Every event published on the bus, one per topic. A new event (or a new version of one: a new topic) is added
 * here, and its JSON Schema written by `npm run schemas -w @flowboard/events`.
 */
export const ALL_EVENTS: ReadonlyArray<EventDefinition<z.ZodType>> = [
  inviteCreatedV1,
  projectDeletedV1,
  resourceChangedV1,
  storyDeletedV1,
];

/**
 * The JSON Schema (draft 2020-12) of a topic's messages: the envelope, with `type` and `version` fixed to the
 * event's, and its data. Generated from the zod schemas the producers and consumers run (`z.toJSONSchema`), in
 * zod's output form: exactly what a producer's `makeEvent` can publish (`additionalProperties: false`, since zod
 * strips undeclared keys). Consumers (`parseEvent`) ignore properties they don't know, so what a consumer accepts
 * is this schema without `additionalProperties: false`; the compatibility check (packages/events/compat) reads it so.
 * Committed in packages/events/schemas/<topic>.json; a unit test fails when the files and the code disagree.
 */
export function eventJsonSchema(definition: EventDefinition<z.ZodType>): Record<string, unknown> {
  const message = envelopeSchema.extend({
    type: z.literal(definition.type),
    version: z.literal(definition.version),
    data: definition.data,
  });
  const schema = z.toJSONSchema(message, { target: 'draft-2020-12', io: 'output' }) as Record<
    string,
    unknown
  >;
  return {
    $schema: schema.$schema,
    $id: `urn:flowboard:event:${definition.topic}`,
    title: definition.topic,
    description:
      `A message on the Kafka topic ${definition.topic}: the event envelope of @flowboard/events with its data. ` +
      'Generated from the code (packages/events/src); do not edit by hand.',
    ...Object.fromEntries(Object.entries(schema).filter(([key]) => key !== '$schema')),
  };
}

/** Every topic's schema, by topic name. */
export function eventJsonSchemas(): Record<string, Record<string, unknown>> {
  return Object.fromEntries(ALL_EVENTS.map((definition) => [definition.topic, eventJsonSchema(definition)]));
}
