/**
 * A step is one period of a story in one status (docs/compat.md §5.3, "Steps"): its type names the status
 * (stories/domain/story-status.ts maps a status to it). Metrics are computed from a story's steps.
 */
export type StepType = 'backlog' | 'working' | 'ready' | 'blocked' | 'archive';
