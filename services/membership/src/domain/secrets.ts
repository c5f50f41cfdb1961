import { createHash, randomBytes } from 'node:crypto';

/**
 * API keys and invite tokens: 32 lowercase hex characters = 128 random bits.
 *
 * API keys are stored only as sha256(key) plus a 4-character hint. A slow password hash (bcrypt, scrypt,
 * argon2) exists to make guessing low-entropy human passwords expensive; a 128-bit random key cannot be
 * guessed either way, so a fast hash is as safe here, and it lets the gateway verify a key on every request
 * with one indexed lookup (a slow hash would also rule out the lookup by hash).
 */
const KEY_FORMAT = /^[0-9a-f]{32}$/;

export const generateSecret = (): string => randomBytes(16).toString('hex');
export const generateApiKey = generateSecret;
export const generateInviteToken = generateSecret;

/** Keys are accepted trimmed and in any case (docs/compat.md §3.1). */
export const normalizeApiKey = (raw: string): string => raw.trim().toLowerCase();
export const isWellFormedApiKey = (key: string): boolean => KEY_FORMAT.test(key);

export const hashApiKey = (key: string): string => createHash('sha256').update(key, 'utf8').digest('hex');
/** The last 4 characters, shown in key listings so a user can tell keys apart. */
export const apiKeyHint = (key: string): string => key.slice(-4);
