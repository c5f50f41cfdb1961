import { DomainError } from '@flowboard/service-kit';
import { MAX_PAGE_SIZE } from '../../shared/application/list-window';
import { noSignal, type OutboxSignal } from '../../shared/application/resource-events';
import { parseFilter, STORY_FILTER_PROPERTIES } from '../../shared/domain/filter';
import { requirePositiveId } from '../../shared/domain/ids';
import { parseStoryChanges, type StoryUpdate } from '../domain/story';
import type { StoryRecord, UserAlias } from './ports';
import type { StoriesStore } from './stories-store';
import { applyChangesToStories } from './update-story';

/** The stories one set-based write takes at most: a board's matches may be many, each statement stays bounded. */
const STORIES_PER_STATEMENT = 500;

/** The same StoryUpdate for every story matching `where`; answers a page of them. */
export interface UpdateStoriesCommand extends StoryUpdate {
  projectId: number;
  where: string;
  users: readonly UserAlias[];
  page: number;
  pageSize: number;
  /** The caller (from call metadata): the actor of the change events. */
  actorId: number;
}

export type UpdateStories = (
  command: UpdateStoriesCommand,
) => Promise<{ stories: StoryRecord[]; total: number }>;

const invalidParameter = (message: string) =>
  new DomainError('InvalidArgument', message, { problem: 'invalid-parameter' });

/**
 * Bulk update (`PUT P/stories?where=`, docs/compat.md §5.3): every story matching `where` gets the same
 * changes, in board order, in ONE transaction under the board row lock, written set-based (a few statements for
 * up to 500 stories, applyChangesToStories). Any failure rolls everything back and
 * is a 400 (InvalidArgument) naming the story. Answers the requested page of the affected stories after the
 * update (they may no longer match `where`). Each story that changed publishes its own events, as a single
 * update would; the stories that did not, none.
 */
export function makeUpdateStories(store: StoriesStore, signal: OutboxSignal = noSignal): UpdateStories {
  return async (command) => {
    const projectId = requirePositiveId('project_id', command.projectId);
    if (command.where.trim() === '') {
      throw invalidParameter(
        "The 'where' argument is required for a bulk update (e.g. where=not(color:red)).",
      );
    }
    if (!Number.isSafeInteger(command.page) || command.page < 1) throw invalidParameter("Invalid 'page'.");
    if (!Number.isSafeInteger(command.pageSize) || command.pageSize < 1 || command.pageSize > MAX_PAGE_SIZE)
      throw invalidParameter("Invalid 'pageSize'.");
    const filter = parseFilter(command.where, STORY_FILTER_PROPERTIES);
    const changes = parseStoryChanges(command);
    const page = await store.transaction(async (tx) => {
      if (!(await tx.boards.lock(projectId))) return { stories: [], total: 0 };
      const ids = await tx.stories.matchingIds(projectId, { filter, users: command.users });
      for (let from = 0; from < ids.length; from += STORIES_PER_STATEMENT) {
        const chunk = ids.slice(from, from + STORIES_PER_STATEMENT);
        const outcomes = await applyChangesToStories(
          tx,
          projectId,
          command.actorId,
          chunk.map((storyId) => ({ storyId, changes })),
          { allOrNothing: true },
        );
        const failed = outcomes.findIndex((outcome) => 'error' in outcome);
        const outcome = outcomes[failed];
        if (outcome && 'error' in outcome) {
          // All or nothing: the transaction rolls back; the answer is a 400 whatever the first failure was.
          const err = outcome.error;
          throw new DomainError(
            'InvalidArgument',
            `Story ${chunk[failed]}: ${err.message} Nothing was changed.`,
            {
              problem: err.kind === 'InvalidArgument' ? err.problem : 'invalid-state',
              cause: err,
            },
          );
        }
      }
      if (ids.length === 0) return { stories: [], total: 0 };
      return tx.stories.list(projectId, {
        ids,
        users: [],
        offset: (command.page - 1) * command.pageSize,
        limit: command.pageSize,
      });
    });
    signal();
    return page;
  };
}
