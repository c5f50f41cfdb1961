import { randomUUID } from 'node:crypto';
import { z } from 'zod';

/** Every event on the bus has this envelope. `id` makes consumers idempotent; `version` is also in the topic name. */
export const envelopeSchema = z.object({
  id: z.uuid(),
  type: z.string().min(1),
  version: z.number().int().positive(),
  occurredAt: z.iso.datetime(),
  source: z.string().min(1),
  data: z.unknown(),
});

export type Envelope<D = unknown> = Omit<z.infer<typeof envelopeSchema>, 'data'> & { data: D };

export interface EventDefinition<S extends z.ZodType> {
  type: string;
  version: number;
  /** `<owner>.<event>.v<N>`: a breaking change is a new topic, so old consumers keep working. */
  topic: string;
  data: S;
}

export function defineEvent<S extends z.ZodType>(type: string, version: number, data: S): EventDefinition<S> {
  return { type, version, topic: `${type}.v${version}`, data };
}

export function makeEvent<S extends z.ZodType>(
  definition: EventDefinition<S>,
  source: string,
  data: z.infer<S>,
): Envelope<z.infer<S>> {
  return {
    id: randomUUID(),
    type: definition.type,
    version: definition.version,
    occurredAt: new Date().toISOString(),
    source,
    data: definition.data.parse(data),
  };
}

/**
 * The JSON Schema keyword (set with zod's `.meta`) marking an enum open: every consumer skips a message with a value
 * it doesn't know instead of refusing it, so the contract gate lets producers add values (scripts/compat.mjs).
 */
export const OPEN_ENUM = 'x-flowboard-open-enum';

export class InvalidEventError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidEventError';
  }
}

/** Validates raw bytes from the bus against the envelope and the event's schema; throws InvalidEventError. */
export function parseEvent<S extends z.ZodType>(
  definition: EventDefinition<S>,
  raw: Buffer | string | null,
): Envelope<z.infer<S>> {
  return validateEvent(definition, messageJson(raw));
}

/** A message's bytes as JSON; throws InvalidEventError. */
export function messageJson(raw: Buffer | string | null): unknown {
  if (raw === null) throw new InvalidEventError('empty message');
  try {
    return JSON.parse(raw.toString());
  } catch {
    throw new InvalidEventError('message is not JSON');
  }
}

/** parseEvent's checks on a message already read as JSON. */
export function validateEvent<S extends z.ZodType>(
  definition: EventDefinition<S>,
  json: unknown,
): Envelope<z.infer<S>> {
  const envelope = envelopeSchema.safeParse(json);
  if (!envelope.success)
    throw new InvalidEventError(`invalid envelope: ${envelope.error.issues[0]?.message}`);
  if (envelope.data.type !== definition.type || envelope.data.version !== definition.version) {
    throw new InvalidEventError(`unexpected event ${envelope.data.type} v${envelope.data.version}`);
  }
  const data = definition.data.safeParse(envelope.data.data);
  if (!data.success) {
    const issue = data.error.issues[0];
    throw new InvalidEventError(
      `invalid ${definition.type} data at ${issue?.path.join('.')}: ${issue?.message}`,
    );
  }
  return { ...envelope.data, data: data.data };
}
