/**
 * The `where=` language is shared (@flowboard/filter); membership's lists are short, so they are matched in
 * memory (exact, ignoring case). What membership adds is the vocabulary of its resources.
 */
export { matchesFilter as matches, parseFilter, type FilterNode as Filter } from '@flowboard/filter';

export const ROLE_FILTER_PROPERTIES = ['name'] as const;
export const USER_FILTER_PROPERTIES = ['name', 'userName', 'email'] as const;
