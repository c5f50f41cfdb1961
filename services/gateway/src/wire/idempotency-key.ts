import { DomainError } from '@flowboard/service-kit';

/**
 * What an Idempotency-Key header may be: a key of 1–255 visible ASCII characters other than `"` and `\` (UUIDs are
 * the usual choice), bare or as the draft's structured-field string (`"…"`, which then needs no escapes). The
 * OpenAPI document states the same pattern, so a client (or the fuzzer) can tell a valid key before sending it.
 */
export const IDEMPOTENCY_KEY_PATTERN = '^("[!#-\\[\\]-~]{1,255}"|[!#-\\[\\]-~]{1,255})$';
const IDEMPOTENCY_KEY = new RegExp(IDEMPOTENCY_KEY_PATTERN);

/** The key of an Idempotency-Key header, undefined without one; anything else → 400. */
export function parseIdempotencyKey(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  const value = Array.isArray(header) ? header.join(',') : header;
  const match = IDEMPOTENCY_KEY.exec(value);
  if (!match) {
    throw new DomainError(
      'InvalidArgument',
      'Idempotency-Key must be 1 to 255 visible ASCII characters, no quotes or backslashes inside, e.g. a ' +
        'UUID in double quotes.',
      { problem: 'invalid-parameter' },
    );
  }
  return (match[0] as string).replace(/^"(.*)"$/, '$1');
}
