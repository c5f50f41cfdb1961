/**
 * The `where=` language is shared (@flowboard/filter); what boards adds is the vocabulary of its resources.
 * The repository compiles the AST into parameterised SQL (stories/db/story-filter-sql.ts).
 */
export { FILTER_LIMITS, parseFilter, type FilterNode } from '@flowboard/filter';

export const STORY_FILTER_PROPERTIES = [
  'id',
  'text',
  'details',
  'color',
  'size',
  'priority',
  'status',
  'phase',
  'owner',
  'creator',
  'tag',
  'deadline',
] as const;
export type StoryFilterProperty = (typeof STORY_FILTER_PROPERTIES)[number];

export const PHASE_FILTER_PROPERTIES = ['name'] as const;
