import { RESOURCE_EVENT_TYPES } from '@flowboard/events';
import { DomainError } from '@flowboard/service-kit';

/** The event type of a ping; not subscribable (a ping goes to the one webhook it was asked for). */
export const PING_EVENT_TYPE = 'webhook.ping';

export const MAX_DESCRIPTION_LENGTH = 500;

/** Fields UpdateWebhook may change (its update_mask). */
export const UPDATABLE_FIELDS = ['url', 'event_types', 'active', 'description'] as const;
export type UpdatableField = (typeof UPDATABLE_FIELDS)[number];

const SUBSCRIBABLE: ReadonlySet<string> = new Set(RESOURCE_EVENT_TYPES);

const invalid = (message: string) => new DomainError('InvalidArgument', message);

/** Known types only, each once, in the order given; empty = every type. */
export function normalizeEventTypes(types: readonly string[]): string[] {
  const unknown = types.filter((type) => !SUBSCRIBABLE.has(type));
  if (unknown.length) {
    throw invalid(
      `Unknown event type${unknown.length > 1 ? 's' : ''}: ${unknown.slice(0, 5).join(', ')}. ` +
        `Known: ${RESOURCE_EVENT_TYPES.join(', ')}.`,
    );
  }
  return [...new Set(types)];
}

export function normalizeDescription(description: string): string {
  const text = description.trim();
  if (text.length > MAX_DESCRIPTION_LENGTH) {
    throw invalid(`The description is longer than ${MAX_DESCRIPTION_LENGTH} characters.`);
  }
  return text;
}

export function parseUpdateMask(mask: readonly string[]): Set<UpdatableField> {
  const fields = new Set<UpdatableField>();
  for (const name of mask) {
    if (!(UPDATABLE_FIELDS as readonly string[]).includes(name)) {
      throw invalid(`Cannot update '${name}'; the update mask names: ${UPDATABLE_FIELDS.join(', ')}.`);
    }
    fields.add(name as UpdatableField);
  }
  return fields;
}

/** Whether a webhook subscribed to `types` receives an event of `type`. */
export const subscribes = (types: readonly string[], type: string): boolean =>
  types.length === 0 || types.includes(type);
