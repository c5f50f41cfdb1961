import { DomainError } from './errors';

/**
 * Conditional writes (HTTP If-Match). Every single resource has a version its service's database keeps (1 when
 * created, +1 with each change of what the API shows of it; each service's migration says which columns count).
 * A write may name the version it expects; it then happens only if the resource is still at that version.
 */

/**
 * A request's `expected_version`: 0 (the proto3 default) is an unconditional write, undefined here. A negative
 * version is one no resource is ever at: the gateway sends -1 for an entity-tag it did not make, which must fail
 * as a mismatch (412), not as a bad request.
 */
export function parseExpectedVersion(value: number | undefined): number | undefined {
  if (value === undefined || value === 0) return undefined;
  if (!Number.isSafeInteger(value)) {
    throw new DomainError('InvalidArgument', 'Invalid expected_version: expected an integer version.');
  }
  return value;
}

/**
 * PreconditionFailed when the write is conditional and the resource is at another version. Call it on the
 * locked row (or with what a single conditional statement found), before any other rule of the write, so nothing
 * has been written yet.
 */
export function requireVersion(
  resource: string,
  id: number,
  current: number,
  expected: number | undefined,
): void {
  if (expected !== undefined && current !== expected) {
    throw new DomainError(
      'PreconditionFailed',
      `${resource} ${id} is at version ${current}, not ${expected}.`,
    );
  }
}
