import { DomainError } from '@flowboard/service-kit';
import { MAX_NAME_LENGTH } from './user';
import type { AccessLevel } from './access';

/** Long free text (description, details) is capped at 100,000 characters (docs/compat.md §1.5). */
export const MAX_LONG_TEXT = 100_000;

export interface NewProject {
  name: string;
  description: string;
  details: string;
}

/** The roles every new project starts with; the owner joins the first. */
export const DEFAULT_ROLES: ReadonlyArray<{ name: string; access: AccessLevel; ownerJoins: boolean }> = [
  { name: 'Administrators', access: 'admin', ownerJoins: true },
  { name: 'Members', access: 'readwrite', ownerJoins: false },
];

const invalid = (message: string) =>
  new DomainError('InvalidArgument', message, { problem: 'invalid-field' });

export function parseNewProject(input: {
  name?: string;
  description?: string;
  details?: string;
}): NewProject {
  const name = (input.name ?? '').trim();
  if (!name) throw invalid("'name' is required.");
  if (name.length > MAX_NAME_LENGTH) throw invalid(`'name' must be at most ${MAX_NAME_LENGTH} characters.`);
  const description = input.description ?? '';
  const details = input.details ?? '';
  if (description.length > MAX_LONG_TEXT)
    throw invalid(`'description' must be at most ${MAX_LONG_TEXT} characters.`);
  if (details.length > MAX_LONG_TEXT) throw invalid(`'details' must be at most ${MAX_LONG_TEXT} characters.`);
  return { name, description, details };
}

/** `where=` on the project list (docs/compat.md §4.2). */
export const PROJECT_FILTER_PROPERTIES = ['name'] as const;

/** PUT P: every field optional; a present one is checked like on create. */
export function parseProjectChanges(input: { name?: string; description?: string; details?: string }): {
  name?: string;
  description?: string;
  details?: string;
} {
  const changes: { name?: string; description?: string; details?: string } = {};
  if (input.name !== undefined) {
    const name = input.name.trim();
    if (!name) throw invalid("'name' must not be blank.");
    if (name.length > MAX_NAME_LENGTH) throw invalid(`'name' must be at most ${MAX_NAME_LENGTH} characters.`);
    changes.name = name;
  }
  for (const field of ['description', 'details'] as const) {
    const value = input[field];
    if (value === undefined) continue;
    if (value.length > MAX_LONG_TEXT)
      throw invalid(`'${field}' must be at most ${MAX_LONG_TEXT} characters.`);
    changes[field] = value;
  }
  return changes;
}
