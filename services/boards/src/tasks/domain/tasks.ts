import { DomainError } from '@flowboard/service-kit';

/** Task rules (spec "Task", docs/compat.md §5.6). */

export const TASK_STATUSES = ['incomplete', 'complete'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

export const TASK_TEXT_LIMIT = 2000;

const invalidField = (message: string) =>
  new DomainError('InvalidArgument', message, { problem: 'invalid-field' });

/** `text`: required (blank counts as missing), at most 2,000 characters, no NUL. Stored as given. */
export function parseTaskText(input: string | undefined | null): string {
  const value = input ?? '';
  if (value.trim() === '') throw invalidField('Missing text: a task needs a text.');
  if (value.includes('\u0000')) throw invalidField('Invalid text: must not contain NUL characters.');
  if ([...value].length > TASK_TEXT_LIMIT)
    throw invalidField(`Invalid text: must be at most ${TASK_TEXT_LIMIT} characters.`);
  return value;
}

/** `status`: `incomplete` or `complete`, ignoring case; "" (unset) is `incomplete`. */
export function parseTaskStatus(input: string | undefined | null): TaskStatus {
  const value = (input ?? '').trim().toLowerCase();
  if (value === '') return 'incomplete';
  if ((TASK_STATUSES as readonly string[]).includes(value)) return value as TaskStatus;
  throw invalidField(`Invalid status '${input}': expected 'incomplete' or 'complete'.`);
}

export interface TaskCompletion {
  status: TaskStatus;
  finishedAt: Date | null;
  finishedBy: number | null;
}

/**
 * The completion fields after a status change: completing sets the finish time and the finisher (the caller);
 * reopening clears both (docs/compat.md §5.6). Setting the status a task already has changes nothing.
 */
export function applyTaskStatus(
  current: TaskCompletion,
  next: TaskStatus,
  caller: number,
  now: Date,
): TaskCompletion {
  if (next === current.status) return current;
  return next === 'complete'
    ? { status: 'complete', finishedAt: now, finishedBy: caller }
    : { status: 'incomplete', finishedAt: null, finishedBy: null };
}

/** `PUT S/tasks`: every current task exactly once (docs/compat.md §5.6), else 400. */
export function validateTaskOrder(current: readonly number[], requested: readonly number[]): void {
  const known = new Set(current);
  const seen = new Set<number>();
  for (const id of requested) {
    if (!known.has(id))
      throw new DomainError(
        'InvalidArgument',
        `Invalid task order: task ${id} is not a task of this story.`,
        {
          problem: 'invalid-body',
        },
      );
    if (seen.has(id))
      throw new DomainError('InvalidArgument', `Invalid task order: task ${id} is listed twice.`, {
        problem: 'invalid-body',
      });
    seen.add(id);
  }
  if (seen.size !== known.size) {
    const missing = current.filter((id) => !seen.has(id));
    throw new DomainError(
      'InvalidArgument',
      `Invalid task order: every task must be listed once; missing ${missing.join(', ')}.`,
      { problem: 'invalid-body' },
    );
  }
}
