import type { AttachmentRepository, BlobStore, WarnLogger } from './ports';

/** Deletes every attachment of a project, or of one story (`storyId`), and their objects. Idempotent. */
export type PurgeAttachments = (projectId: number, storyId?: number) => Promise<{ deleted: number }>;

/** Object removals run this many at a time, so a large project neither floods the store nor takes forever. */
const REMOVE_CONCURRENCY = 8;

/**
 * What files does when a project or story is deleted elsewhere (events): the rows go first, with their bytes
 * freed and a tombstone that stops uploads still in flight from committing into the deleted scope; then the
 * objects. An object that cannot be removed now is logged and left to the sweeper, which removes objects that
 * have no row — so a redelivered event has nothing left to do, and nothing is ever orphaned for good.
 */
export function makePurgeAttachments(deps: {
  attachments: AttachmentRepository;
  blobs: BlobStore;
  logger: WarnLogger;
}): PurgeAttachments {
  return async (projectId, storyId) => {
    const keys = await deps.attachments.deleteScope(projectId, storyId);
    for (let i = 0; i < keys.length; i += REMOVE_CONCURRENCY) {
      const batch = keys.slice(i, i + REMOVE_CONCURRENCY);
      const results = await Promise.allSettled(batch.map((key) => deps.blobs.remove(key)));
      results.forEach((result, j) => {
        if (result.status === 'rejected') {
          deps.logger.warn(
            { err: result.reason, objectKey: batch[j], sweep: true },
            'orphaned attachment object: the row is deleted, the object could not be removed',
          );
        }
      });
    }
    return { deleted: keys.length };
  };
}
