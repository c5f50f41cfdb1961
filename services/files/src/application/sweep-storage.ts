import type { AttachmentRepository, BlobStore, QuotaStore, WarnLogger } from './ports';

export interface SweepResult {
  releasedReservations: number;
  abortedUploads: number;
  removedObjects: number;
}

export type SweepStorage = () => Promise<SweepResult>;

/**
 * The periodic clean-up of what a crash (or a failed removal) can leave behind:
 * - reservations no upload renews any more (its process died) give their bytes back;
 * - multipart uploads started more than `orphanAgeMs` ago and never completed are aborted (their parts freed);
 * - objects older than `orphanAgeMs` with no committed row are removed. An upload writes its objects first and
 *   its rows last, so the age must exceed the longest upload; younger objects may still be about to commit.
 */
export function makeSweepStorage(deps: {
  attachments: AttachmentRepository;
  blobs: BlobStore;
  quota: QuotaStore;
  logger: WarnLogger;
  orphanAgeMs: number;
  now?: () => number;
}): SweepStorage {
  const now = deps.now ?? Date.now;
  return async () => {
    const cutoff = now() - deps.orphanAgeMs;
    const releasedReservations = await deps.quota.releaseExpired();

    let abortedUploads = 0;
    for await (const upload of deps.blobs.listIncompleteUploads()) {
      if (upload.initiated.getTime() >= cutoff) continue;
      await deps.blobs.abortIncompleteUpload(upload);
      abortedUploads++;
    }

    let removedObjects = 0;
    for await (const page of deps.blobs.listObjects()) {
      const old = page.filter((o) => o.lastModified.getTime() < cutoff).map((o) => o.key);
      const committed = await deps.attachments.existingKeys(old);
      for (const key of old) {
        if (committed.has(key)) continue;
        try {
          await deps.blobs.remove(key);
          removedObjects++;
        } catch (err) {
          deps.logger.warn({ err, objectKey: key }, 'sweeper could not remove an orphaned object');
        }
      }
    }
    return { releasedReservations, abortedUploads, removedObjects };
  };
}
