import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Stored answers are sealed (AES-256-GCM) under a key derived from the Idempotency-Key and its scope, neither of
 * which is stored: an answer may hold a secret shown once (a new API key, a webhook's secret), and Redis alone must
 * not reveal it. Only a retry, which brings the key again, can open it.
 */
const IV_BYTES = 12;
const TAG_BYTES = 16;

function sealingKey(idempotencyKey: string, scope: string): Buffer {
  return Buffer.from(hkdfSync('sha256', idempotencyKey, scope, 'flowboard idempotent response', 32));
}

export function seal(plain: Buffer, idempotencyKey: string, scope: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', sealingKey(idempotencyKey, scope), iv);
  const sealed = Buffer.concat([cipher.update(plain), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64');
}

/** Throws if the text was not sealed under this key and scope (or was altered). */
export function open(text: string, idempotencyKey: string, scope: string): Buffer {
  const bytes = Buffer.from(text, 'base64');
  const decipher = createDecipheriv(
    'aes-256-gcm',
    sealingKey(idempotencyKey, scope),
    bytes.subarray(0, IV_BYTES),
  );
  decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
}
