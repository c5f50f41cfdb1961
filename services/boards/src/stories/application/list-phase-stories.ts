import { DomainError } from '@flowboard/service-kit';
import { parseFilter, STORY_FILTER_PROPERTIES } from '../../shared/domain/filter';
import { requirePositiveId } from '../../shared/domain/ids';
import { MAX_PAGE_SIZE } from '../../shared/application/list-window';
import { phaseNotFound } from '../../phases/application/get-phase';
import type { PhaseRecord } from '../../phases/application/ports';
import type { StoryRecord, UserAlias } from './ports';
import type { StoriesStore } from './stories-store';

export interface ListPhaseStoriesQuery {
  projectId: number;
  phaseId: number;
  where: string;
  page: number;
  pageSize: number;
  users: readonly UserAlias[];
}

export type ListPhaseStories = (
  query: ListPhaseStoriesQuery,
) => Promise<{ phase: PhaseRecord; stories: StoryRecord[] }>;

const invalidParameter = (message: string) =>
  new DomainError('InvalidArgument', message, { problem: 'invalid-parameter' });

/** GET P/phases/{id}/stories: the phase and a slice of its stories in board order (docs/compat.md §5.4). */
export function makeListPhaseStories(store: StoriesStore): ListPhaseStories {
  return async (query) => {
    const projectId = requirePositiveId('project_id', query.projectId);
    if (!Number.isSafeInteger(query.phaseId) || query.phaseId <= 0) throw phaseNotFound();
    if (!Number.isSafeInteger(query.page) || query.page < 1) throw invalidParameter("Invalid 'page'.");
    if (!Number.isSafeInteger(query.pageSize) || query.pageSize < 1 || query.pageSize > MAX_PAGE_SIZE)
      throw invalidParameter("Invalid 'pageSize'.");
    const filter = parseFilter(query.where, STORY_FILTER_PROPERTIES);
    const phase = await store.phases.find(projectId, query.phaseId);
    if (!phase) throw phaseNotFound();
    const { stories } = await store.stories.list(projectId, {
      filter,
      phaseId: phase.id,
      users: query.users,
      offset: (query.page - 1) * query.pageSize,
      limit: query.pageSize,
    });
    return { phase, stories };
  };
}
