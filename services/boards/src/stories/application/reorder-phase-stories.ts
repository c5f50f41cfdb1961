import { phaseNotFound } from '../../phases/application/get-phase';
import type { PhaseRecord } from '../../phases/application/ports';
import { validateStoryOrder } from '../../phases/domain/phase-order';
import { requirePositiveId } from '../../shared/domain/ids';
import type { StoryRecord } from './ports';
import type { StoriesStore } from './stories-store';

export type ReorderPhaseStories = (
  projectId: number,
  phaseId: number,
  storyIds: readonly number[],
) => Promise<{ phase: PhaseRecord; stories: StoryRecord[] }>;

/**
 * PUT P/phases/{id}/stories: exactly the phase's stories in their new order (else 400), renumbered in one
 * transaction under the board row lock (moves and creates into the phase wait for it).
 */
export function makeReorderPhaseStories(store: StoriesStore): ReorderPhaseStories {
  return async (rawProjectId, phaseId, storyIds) => {
    const projectId = requirePositiveId('project_id', rawProjectId);
    if (!Number.isSafeInteger(phaseId) || phaseId <= 0) throw phaseNotFound();
    return store.transaction(async (tx) => {
      if (!(await tx.boards.lock(projectId))) throw phaseNotFound();
      const phase = await tx.phases.find(projectId, phaseId);
      if (!phase) throw phaseNotFound();
      validateStoryOrder(await tx.stories.idsInPhase(projectId, phaseId), storyIds);
      await tx.stories.reorderInPhase(projectId, phaseId, storyIds);
      const { stories } = await tx.stories.list(projectId, {
        phaseId,
        users: [],
        offset: 0,
        limit: Math.max(storyIds.length, 1),
      });
      return { phase, stories };
    });
  };
}
