import { DomainError } from '@flowboard/service-kit';

/**
 * Phase order rules (spec "Phase" rules, docs/compat.md §5.4), pure: Backlog is always at index 0 and Archive
 * always last; they never move; everything else lives strictly between them. Positions are dense (0..n-1).
 */

const invalid = (message: string, problem: 'invalid-field' | 'invalid-body' = 'invalid-field') =>
  new DomainError('InvalidArgument', message, { problem });

export const PHASE_NAME_MAX = 200;
export const PHASE_DESCRIPTION_MAX = 100_000;

export function parsePhaseName(value: string): string {
  const name = value.trim();
  if (name === '') throw invalid("Field 'name' is required.");
  if (name.length > PHASE_NAME_MAX)
    throw invalid(`Field 'name' is longer than ${PHASE_NAME_MAX} characters.`);
  return name;
}

export function parsePhaseDescription(value: string): string {
  if (value.length > PHASE_DESCRIPTION_MAX) {
    throw invalid(`Field 'description' is longer than ${PHASE_DESCRIPTION_MAX} characters.`);
  }
  return value;
}

/** A WIP limit: a positive integer, or 0 (the wire's "none") → null. */
export function parseWipLimit(value: number): number | null {
  if (value === 0) return null;
  if (!Number.isSafeInteger(value) || value < 0 || value > 2_147_483_647) {
    throw invalid("Field 'limit' must be a positive integer, or null to remove it.");
  }
  return value;
}

/**
 * The index a new phase takes on a board whose Archive is at `archiveIndex`: by default just before Archive
 * (Archive's current index); an explicit index must be 1..archiveIndex (Archive then shifts up).
 */
export function insertionIndex(requested: number | undefined, archiveIndex: number): number {
  if (requested === undefined) return archiveIndex;
  if (!Number.isSafeInteger(requested) || requested < 1 || requested > archiveIndex) {
    throw invalid(`Field 'index' must be between 1 and ${archiveIndex} (Backlog stays first, Archive last).`);
  }
  return requested;
}

/**
 * The index a phase at `current` moves to on a board whose last index is `lastIndex`. Backlog and Archive never
 * move; a middle phase must stay in 1..lastIndex-1. Returns `current` for a no-op.
 */
export function moveIndex(current: number, requested: number, lastIndex: number): number {
  if (requested === current) return current;
  if (current === 0) throw invalid('The Backlog phase cannot be moved: it is always first.');
  if (current === lastIndex) throw invalid('The Archive phase cannot be moved: it is always last.');
  if (!Number.isSafeInteger(requested) || requested < 1 || requested > lastIndex - 1) {
    throw invalid(
      `Field 'index' must be between 1 and ${lastIndex - 1} (nothing goes before Backlog or after Archive).`,
    );
  }
  return requested;
}

/**
 * The new position of every phase when the phase at `from` moves to `to` (positions are dense 0..n-1): the
 * phases in between shift by one towards the gap.
 */
export function shiftedPosition(position: number, from: number, to: number): number {
  if (position === from) return to;
  if (from < to && position > from && position <= to) return position - 1;
  if (to < from && position >= to && position < from) return position + 1;
  return position;
}

/**
 * Checks a full reorder (PUT P/phases): `requested` must name every phase of `current` (ids by position)
 * exactly once, with Backlog first and Archive last.
 */
export function validatePhaseOrder(current: readonly number[], requested: readonly number[]): void {
  const known = new Set(current);
  const seen = new Set<number>();
  for (const id of requested) {
    if (!known.has(id)) throw invalid(`Phase ${id} is not a phase of this project.`, 'invalid-body');
    if (seen.has(id)) throw invalid(`Phase ${id} is listed more than once.`, 'invalid-body');
    seen.add(id);
  }
  if (seen.size !== known.size) {
    const missing = current.filter((id) => !seen.has(id));
    throw invalid(`Every phase must be listed; missing: ${missing.join(', ')}.`, 'invalid-body');
  }
  if (requested[0] !== current[0]) throw invalid('The Backlog phase must come first.', 'invalid-body');
  if (requested[requested.length - 1] !== current[current.length - 1]) {
    throw invalid('The Archive phase must come last.', 'invalid-body');
  }
}

/** Checks a phase's story order (PUT P/phases/{id}/stories): exactly the phase's stories, each once. */
export function validateStoryOrder(current: readonly number[], requested: readonly number[]): void {
  const known = new Set(current);
  const seen = new Set<number>();
  for (const id of requested) {
    if (!known.has(id)) throw invalid(`Story ${id} is not in this phase.`, 'invalid-body');
    if (seen.has(id)) throw invalid(`Story ${id} is listed more than once.`, 'invalid-body');
    seen.add(id);
  }
  if (seen.size !== known.size) {
    const missing = current.filter((id) => !seen.has(id));
    throw invalid(`Every story of the phase must be listed; missing: ${missing.join(', ')}.`, 'invalid-body');
  }
}
