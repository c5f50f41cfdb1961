import { DomainError } from '@flowboard/service-kit';

/** Ids arrive as int64 → number; anything not a positive safe integer is refused, naming the field. */
export function requirePositiveId(field: string, value: number): number {
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new DomainError('InvalidArgument', `Invalid ${field}: expected a positive integer.`, {
      problem: 'invalid-field',
    });
  }
  return value;
}

/** For optional references where 0 means "none" (proto3 default): returns null for 0. */
export function optionalId(field: string, value: number): number | null {
  return value === 0 ? null : requirePositiveId(field, value);
}
