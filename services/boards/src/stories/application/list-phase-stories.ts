import { parseFilter, STORY_FILTER_PROPERTIES } from '../../shared/domain/filter';
import { requirePositiveId } from '../../shared/domain/ids';
import { keysetWindow, pageWindow } from '../../shared/application/list-window';
import { phaseNotFound } from '../../phases/application/get-phase';
import type { PhaseRecord } from '../../phases/application/ports';
import type { StoryPagesReader, StoryRecord, UserAlias } from './ports';
import type { StoriesStore } from './stories-store';

export interface ListPhaseStoriesQuery {
  projectId: number;
  phaseId: number;
  where: string;
  page: number;
  pageSize: number;
  users: readonly UserAlias[];
  /** Cursor paging: the stories after this story id, in id order (`page` is ignored). */
  afterId?: number;
}

/** `total` and `more` are there exactly when the stories were paged by keyset (`afterId`). */
export type ListPhaseStories = (
  query: ListPhaseStoriesQuery,
) => Promise<{ phase: PhaseRecord; stories: StoryRecord[]; total?: number; more?: boolean }>;

/**
 * GET P/phases/{id}/stories: the phase and a slice of its stories in board order (docs/compat.md §5.4), or by keyset
 * in id order (README "Sync: cursors and updatedSince"), read on the pool by `storyPages`.
 */
export function makeListPhaseStories(store: StoriesStore, storyPages: StoryPagesReader): ListPhaseStories {
  return async (query) => {
    const projectId = requirePositiveId('project_id', query.projectId);
    if (!Number.isSafeInteger(query.phaseId) || query.phaseId <= 0) throw phaseNotFound();
    const window =
      query.afterId === undefined
        ? pageWindow(query.page, query.pageSize)
        : keysetWindow(query.afterId, query.pageSize);
    const filter = parseFilter(query.where, STORY_FILTER_PROPERTIES);
    const phase = await store.phases.find(projectId, query.phaseId);
    if (!phase) throw phaseNotFound();
    const matching = { filter, phaseId: phase.id, users: query.users };
    if ('afterId' in window)
      return { phase, ...(await storyPages.byId(projectId, { ...matching, ...window })) };
    return { phase, stories: (await store.stories.list(projectId, { ...matching, ...window })).stories };
  };
}
