import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/** The key that seals signing secrets at rest, and its id (a digest prefix, safe to store and log). */
export interface SealingKey {
  id: string;
  key: Buffer;
}

const IV_BYTES = 12;
const TAG_BYTES = 16;

/** SECRET_ENCRYPTION_KEY: base64 of exactly 32 bytes. The error never repeats the value. */
export function parseSealingKey(base64: string): SealingKey {
  const key = Buffer.from(base64, 'base64');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(base64.trim()) || key.length !== 32) {
    throw new Error('must be base64 of 32 bytes (openssl rand -base64 32)');
  }
  return { id: createHash('sha256').update(key).digest('hex').slice(0, 12), key };
}

/**
 * AES-256-GCM: iv ‖ tag ‖ ciphertext. `context` (e.g. the row's id) is authenticated, so a sealed value copied
 * to another row does not open there.
 */
export function seal(key: SealingKey, plaintext: string, context: string): Buffer {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key.key, iv);
  cipher.setAAD(Buffer.from(context, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), ciphertext]);
}

/** Throws when the key or the context is not the one it was sealed with, or the value was altered. */
export function open(key: SealingKey, sealed: Buffer, context: string): string {
  const decipher = createDecipheriv('aes-256-gcm', key.key, sealed.subarray(0, IV_BYTES));
  decipher.setAAD(Buffer.from(context, 'utf8'));
  decipher.setAuthTag(sealed.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  return Buffer.concat([decipher.update(sealed.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString(
    'utf8',
  );
}
