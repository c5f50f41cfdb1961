import { randomBytes } from 'node:crypto';

/** Standard Webhooks' secret format: `whsec_` + base64 of 24 to 64 random bytes. We make 32. */
const PREFIX = 'whsec_';
const SECRET_BYTES = 32;

/** A new signing secret, shown to the caller once. */
export const generateSecret = (): string => PREFIX + randomBytes(SECRET_BYTES).toString('base64');

/** The HMAC key: the secret's decoded bytes (the prefix is not part of it). Throws on a malformed secret. */
export function secretKey(secret: string): Buffer {
  const encoded = secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : '';
  const key = Buffer.from(encoded, 'base64');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || key.length < 24 || key.length > 64) {
    throw new Error('not a whsec_ secret of 24 to 64 bytes');
  }
  return key;
}
