import { DomainError } from '@flowboard/service-kit';
import { requirePositiveId } from '../domain/ids';

/** The id lists of the batch reads (`with=` enrichments of a page): deduplicated and bounded. */

/** At most this many stories in one batch read (a page of stories is at most 1000). */
export const MAX_BATCH_STORIES = 1000;

/** At most this many projects per batch (a page of projects is at most 1000). */
export const MAX_BATCH_PROJECTS = 1000;

/** A positive project id (else 400) and the story ids that can name a story, each once (≤ 0 names none). */
export function batchStoryIds(
  projectId: number,
  storyIds: readonly number[],
): { projectId: number; ids: number[] } {
  const project = requirePositiveId('project_id', projectId);
  const ids = [...new Set(storyIds.filter((id) => Number.isSafeInteger(id) && id > 0))];
  if (ids.length > MAX_BATCH_STORIES)
    throw new DomainError('InvalidArgument', `At most ${MAX_BATCH_STORIES} stories per batch.`, {
      problem: 'invalid-field',
    });
  return { projectId: project, ids };
}

/** Project ids, each once, in the order asked; one that is not positive → 400 naming `project_ids`. */
export function batchProjectIds(projectIds: readonly number[]): number[] {
  const ids = [...new Set(projectIds.map((id) => requirePositiveId('project_ids', id)))];
  if (ids.length > MAX_BATCH_PROJECTS)
    throw new DomainError('InvalidArgument', `At most ${MAX_BATCH_PROJECTS} projects per batch.`, {
      problem: 'invalid-field',
    });
  return ids;
}
