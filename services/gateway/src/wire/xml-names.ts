import { PLURALS, type ResourceType } from '@flowboard/representation';

/**
 * The element name of one item of an array property (docs/compat.md §2: `members/user`, `phases/phase`, ...).
 * Plural resource names map to their singular; `members` holds users, a webhook's `eventTypes` one `eventType`
 * each, a delivery's `attempts` one `attempt` each, the change stream's `events` one `event` each. `items` (the page envelope) is named by the page's own type, so
 * it is passed in by the caller.
 */
const ITEM_ELEMENT: ReadonlyMap<string, string> = new Map<string, string>([
  ...Object.entries(PLURALS).map(([singular, plural]) => [plural, singular] as [string, string]),
  ['members', 'user'],
  ['eventTypes', 'eventType'],
  ['attempts', 'attempt'],
  ['events', 'event'],
  ['groups', 'group'],
  ['highlights', 'highlight'],
  // A sync's deleted stories (README "Sync: cursors and updatedSince").
  ['deleted', 'deletedStory'],
  ['results', 'result'],
]);

export function itemElementFor(property: string, pageItem?: ResourceType): string {
  if (property === 'items' && pageItem) return pageItem;
  const name = ITEM_ELEMENT.get(property);
  if (!name) throw new Error(`No XML item element is defined for array property '${property}'`);
  return name;
}

/** The item element name the API has for an array property, or undefined (`itemElementFor` would throw). */
export const knownItemElement = (property: string): string | undefined => ITEM_ELEMENT.get(property);

/** Array properties of request bodies whose XML children are items (`<tags><tag>x</tag></tags>`). */
export const isArrayProperty = (property: string): boolean =>
  property === 'items' || ITEM_ELEMENT.has(property);
