import { DomainError } from '@flowboard/service-kit';
import { optionalId } from '../../shared/domain/ids';
import { parseColor, type StoryColor } from './color';
import { parseDeadline } from './deadline';

/**
 * Length caps (docs/compat.md §1.5), counted in characters (code points), as PostgreSQL's char_length does.
 */
export const STORY_LIMITS = Object.freeze({
  text: 2000,
  size: 50,
  priority: 50,
  details: 100_000,
  blockedReason: 1000,
});

const invalidField = (field: string, message: string) =>
  new DomainError('InvalidArgument', `Invalid ${field}: ${message}`, { problem: 'invalid-field' });

const codePoints = (s: string): number => {
  let n = 0;
  for (const _ of s) n++;
  return n;
};

/** PostgreSQL text cannot hold NUL; refuse it as bad input rather than fail in the database. */
function checkText(field: string, value: string, max: number): string {
  if (value.includes('\u0000')) throw invalidField(field, 'must not contain NUL characters.');
  if (codePoints(value) > max) throw invalidField(field, `must be at most ${max} characters.`);
  return value;
}

/** `text`: required (blank counts as missing), at most 2,000 characters. Stored as given. */
export function parseStoryText(input: string | undefined | null): string {
  const value = input ?? '';
  if (value.trim() === '')
    throw new DomainError('InvalidArgument', 'Missing text: a story needs a text.', {
      problem: 'invalid-field',
    });
  return checkText('text', value, STORY_LIMITS.text);
}

/**
 * `size` and `priority`: free text, trimmed, at most 50 characters, `""` when unset (docs/compat.md §5.3).
 */
export function parseShortLabel(field: 'size' | 'priority', input: string | undefined | null): string {
  return checkText(field, (input ?? '').trim(), STORY_LIMITS[field]);
}

/** `details`: Markdown, at most 100,000 characters, `""` when unset. */
export function parseDetails(input: string | undefined | null): string {
  return checkText('details', input ?? '', STORY_LIMITS.details);
}

export interface NewStoryInput {
  text?: string | null;
  details?: string | null;
  size?: string | null;
  priority?: string | null;
  color?: string | null;
  deadline?: string | null;
}

export interface NewStoryFields {
  text: string;
  details: string;
  size: string;
  priority: string;
  color: StoryColor;
  deadline: Date | null;
}

/** Validates and normalises the caller-supplied fields of a new story; the first problem is reported. */
export function parseNewStory(input: NewStoryInput): NewStoryFields {
  return {
    text: parseStoryText(input.text),
    details: parseDetails(input.details),
    size: parseShortLabel('size', input.size),
    priority: parseShortLabel('priority', input.priority),
    color: parseColor(input.color),
    deadline: parseDeadline(input.deadline),
  };
}

/**
 * A story update as the caller asked for it: the fields the request's update_mask names (UpdateStory, and
 * UpdateStories for every story it matches); undefined = unchanged. parseStoryChanges checks it.
 */
export interface StoryUpdate {
  text?: string;
  details?: string;
  size?: string;
  priority?: string;
  color?: string;
  /** Only started, ready or blocked; checked against the phase the story ends up in (story-status.ts). */
  status?: string;
  /** Kept only while the story is blocked. */
  blockedReason?: string;
  phaseId?: number;
  /** 0 = unassign. The gateway has checked that the owner is a member. */
  ownerId?: number;
  /** "" = clear. */
  deadline?: string;
}

/** A StoryUpdate with each field checked and normalised; undefined = unchanged. */
export interface StoryChanges {
  text?: string;
  details?: string;
  size?: string;
  priority?: string;
  color?: StoryColor;
  deadline?: Date | null;
  ownerId?: number | null;
  phaseId?: number;
  /** As asked: whether it may be set depends on the story's phase (nextStatus). */
  status?: string;
  blockedReason?: string;
}

/** Checks an update's fields, before any I/O; the first problem is reported. */
export function parseStoryChanges(update: StoryUpdate): StoryChanges {
  if (update.phaseId !== undefined && (!Number.isSafeInteger(update.phaseId) || update.phaseId <= 0)) {
    throw new DomainError('InvalidArgument', 'Invalid phase: expected a phase id.', {
      problem: 'invalid-reference',
    });
  }
  return {
    text: update.text === undefined ? undefined : parseStoryText(update.text),
    details: update.details === undefined ? undefined : parseDetails(update.details),
    size: update.size === undefined ? undefined : parseShortLabel('size', update.size),
    priority: update.priority === undefined ? undefined : parseShortLabel('priority', update.priority),
    color: update.color === undefined ? undefined : parseColor(update.color),
    deadline: update.deadline === undefined ? undefined : parseDeadline(update.deadline),
    ownerId: update.ownerId === undefined ? undefined : optionalId('owner_id', update.ownerId),
    phaseId: update.phaseId,
    status: update.status,
    blockedReason: update.blockedReason,
  };
}
