import { randomBytes } from 'node:crypto';
import { DomainError } from '@flowboard/service-kit';

/** 32 lowercase hex characters: an opaque storage identifier, never a credential (docs/compat.md §5.6). */
export const newAttachmentToken = (): string => randomBytes(16).toString('hex');

const TOKEN = /^[0-9a-f]{32}$/;

/**
 * Where the bytes live in the bucket: `<projectId>/<storyId>/<token>`. Built from ids and the random token only,
 * never from the file name, so no name can reach another story's prefix or overwrite anything.
 */
export function objectKey(projectId: number, storyId: number, token: string): string {
  if (!Number.isSafeInteger(projectId) || projectId <= 0 || !Number.isSafeInteger(storyId) || storyId <= 0) {
    throw new RangeError('project and story ids must be positive integers');
  }
  if (!TOKEN.test(token)) throw new RangeError('token must be 32 lowercase hex characters');
  return `${projectId}/${storyId}/${token}`;
}

/** The prefix under which all of a story's objects live (listing, deleting a story). */
export const storyPrefix = (projectId: number, storyId: number): string => `${projectId}/${storyId}/`;

export const DEFAULT_CONTENT_TYPE = 'application/octet-stream';
const MEDIA_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/;

/** The part's media type, lowercase, without parameters; missing or malformed → application/octet-stream. */
export function normalizeContentType(raw: string | null | undefined): string {
  const type = (raw ?? '').split(';')[0]!.trim().toLowerCase();
  return MEDIA_TYPE.test(type) ? type : DEFAULT_CONTENT_TYPE;
}

/** Ids arrive as int64 → number; anything not a positive safe integer is refused, naming the field. */
export function requirePositiveId(field: string, value: number): number {
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new DomainError('InvalidArgument', `Invalid ${field}: expected a positive integer.`, {
      problem: 'invalid-field',
    });
  }
  return value;
}
