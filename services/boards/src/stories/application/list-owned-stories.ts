import { DomainError } from '@flowboard/service-kit';
import { keysetWindow, pageWindow } from '../../shared/application/list-window';
import { parseFilter, STORY_FILTER_PROPERTIES } from '../../shared/domain/filter';
import { requirePositiveId } from '../../shared/domain/ids';
import type { OwnedStoriesReader, StoryRecord } from './ports';

export interface ListOwnedStoriesQuery {
  ownerId: number;
  /** The projects the caller may read (the gateway asked membership). */
  projectIds: readonly number[];
  where: string;
  page: number;
  pageSize: number;
  /** Every match, no paging (`/me?with=stories`). */
  all: boolean;
  /**
   * Cursor paging: the stories after this one in (id, project id) order; story ids are numbered per project, so the
   * project breaks ties (`page` is ignored; not with `all`).
   */
  after?: { id: number; projectId: number };
}

/** `more` is there exactly when the stories were paged by keyset (`afterId`). */
export type ListOwnedStories = (
  query: ListOwnedStoriesQuery,
) => Promise<{ stories: StoryRecord[]; total: number; more?: boolean }>;

/** More projects than anyone is a member of; bounds the statement. */
export const MAX_OWNED_PROJECTS = 10_000;

/**
 * `/me/stories`: the stories a user owns across the given projects, in project id, phase index, board position
 * order (docs/compat.md §4.1), or by keyset in id order, filtered by `where` (owner:/creator: match ids only: there
 * is no single member list).
 */
export function makeListOwnedStories(reader: OwnedStoriesReader): ListOwnedStories {
  return async (query) => {
    const ownerId = requirePositiveId('owner_id', query.ownerId);
    const projectIds = [...new Set(query.projectIds.map((id) => requirePositiveId('project_ids', id)))];
    if (projectIds.length > MAX_OWNED_PROJECTS)
      throw new DomainError('InvalidArgument', `At most ${MAX_OWNED_PROJECTS} projects.`, {
        problem: 'invalid-field',
      });
    const filter = parseFilter(query.where, STORY_FILTER_PROPERTIES);
    if (query.after !== undefined) {
      if (query.all)
        throw new DomainError(
          'InvalidArgument',
          "Give 'keyset' or 'all', not both: a keyset reads one page, 'all' every match.",
          {
            problem: 'invalid-parameter',
          },
        );
      return reader.listOwnedById({
        ownerId,
        projectIds,
        filter,
        afterProjectId: validProjectCursor(query.after.projectId),
        ...keysetWindow(query.after.id, query.pageSize),
      });
    }
    const window = query.all ? { offset: 0, limit: null } : pageWindow(query.page, query.pageSize);
    return reader.listOwned({ ownerId, projectIds, filter, ...window });
  };
}

/** The cursor's project: 0 (none, with id 0 at the start) or a project id. */
function validProjectCursor(projectId: number): number {
  if (!Number.isSafeInteger(projectId) || projectId < 0)
    throw new DomainError('InvalidArgument', "Invalid cursor: 'after_project_id'.", {
      problem: 'invalid-parameter',
    });
  return projectId;
}
