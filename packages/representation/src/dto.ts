/**
 * API resources as plain objects, built once and written as JSON or XML.
 * Keys are in the JSON order of the contract; `undefined` means "omitted in both formats".
 */
export type DtoValue = string | number | boolean | Dto | DtoValue[] | typeof XML_ONLY_EMPTY | undefined;
export interface Dto {
  [key: string]: DtoValue;
}

/**
 * An unset value that JSON omits but XML shows as an empty element (a phase without a `limit` is `<limit />`,
 * docs/compat.md §2).
 */
export const XML_ONLY_EMPTY: unique symbol = Symbol('xml-only-empty');

/** Singular resource types, which are also the XML element names of single resources and of array items. */
export const PLURALS = {
  user: 'users',
  project: 'projects',
  story: 'stories',
  phase: 'phases',
  role: 'roles',
  invite: 'invites',
  attachment: 'attachments',
  tag: 'tags',
  task: 'tasks',
  comment: 'comments',
  milestone: 'milestones',
  step: 'steps',
  apiKey: 'apiKeys',
  account: 'accounts',
  webhook: 'webhooks',
  delivery: 'deliveries',
  bulkResult: 'bulkResults',
} as const;

export type ResourceType = keyof typeof PLURALS;

/** The page envelope, in its JSON key order. */
export interface PageDto extends Dto {
  page: number;
  pageSize: number;
  totalPages: number;
  totalItems: number;
  items: Dto[];
}
