import { parseIdempotencyKey } from './idempotency-key';

describe('Idempotency-Key header', () => {
  it("takes the draft's quoted string, and a bare token", () => {
    expect(parseIdempotencyKey('"8e03978e-40d5-43e8-bc93-6894a57f9324"')).toBe(
      '8e03978e-40d5-43e8-bc93-6894a57f9324',
    );
    expect(parseIdempotencyKey('order-42')).toBe('order-42');
    expect(parseIdempotencyKey(`"${'k'.repeat(255)}"`)).toBe('k'.repeat(255));
    expect(parseIdempotencyKey(undefined)).toBeUndefined();
  });

  it.each([
    '',
    '""',
    '" padded"',
    `"${'x'.repeat(256)}"`,
    'x'.repeat(256),
    'caf\u00e9',
    'tab\there',
    'a b',
    'back\\slash',
    '"a \\"quoted\\" key"',
  ])('refuses %j', (header) => {
    expect(() => parseIdempotencyKey(header)).toThrow(/Idempotency-Key must be/);
  });
});
