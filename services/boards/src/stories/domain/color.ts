import { DomainError } from '@flowboard/service-kit';

export const STORY_COLORS = ['grey', 'blue', 'red', 'green', 'orange', 'yellow', 'purple', 'teal'] as const;
export type StoryColor = (typeof STORY_COLORS)[number];
export const DEFAULT_COLOR: StoryColor = 'grey';

const KNOWN: ReadonlySet<string> = new Set(STORY_COLORS);

/**
 * Any case is accepted and stored lowercase; empty means the default; anything else is refused
 * (docs/compat.md §5.3).
 */
export function parseColor(input: string | undefined | null): StoryColor {
  const value = (input ?? '').trim().toLowerCase();
  if (value === '') return DEFAULT_COLOR;
  if (KNOWN.has(value)) return value as StoryColor;
  throw new DomainError('InvalidArgument', `Invalid color: expected one of ${STORY_COLORS.join(', ')}.`, {
    problem: 'invalid-field',
  });
}
