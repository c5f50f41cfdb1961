import type { boards } from '@flowboard/proto';
import { unary, type Logger } from '@flowboard/service-kit';
import { keysetAnswer } from '../../shared/application/list-window';
import { toPhaseMessage } from '../../phases/application/phase-message';
import type { PhaseStoriesMethods } from '../../phases/grpc/phases.handlers';
import type { StoriesUseCases } from '../application/stories-use-cases';
import { toStoryMessage } from '../application/story-message';

/**
 * PhasesService's methods about a phase's stories (the rest is phases/'s): a phase's stories are stories, read and
 * ordered on the board by the stories slice, which sits above phases. app.ts serves both under PhasesService.
 */
export function phaseStoriesHandlers(
  logger: Logger,
  useCases: StoriesUseCases,
): Pick<boards.PhasesServiceHandlers, PhaseStoriesMethods> {
  return {
    ListPhaseStories: unary(
      logger,
      async (request: boards.ListPhaseStoriesRequest__Output): Promise<boards.ListPhaseStoriesResponse> => {
        const { phase, stories, total, more } = await useCases.listPhaseStories({
          projectId: request.project_id,
          phaseId: request.phase_id,
          where: request.where,
          page: request.page,
          pageSize: request.page_size,
          users: request.users,
          afterId: request.keyset?.after_id,
        });
        return {
          phase: toPhaseMessage(phase),
          stories: stories.map(toStoryMessage),
          // Counted only with a keyset (a cursor page shows the total); an ordinary page answers none, as before.
          ...(total === undefined ? {} : { total_items: total }),
          ...keysetAnswer(more),
        };
      },
    ),

    ReorderPhaseStories: unary(
      logger,
      async (
        request: boards.ReorderPhaseStoriesRequest__Output,
      ): Promise<boards.ReorderPhaseStoriesResponse> => {
        const { phase, stories } = await useCases.reorderPhaseStories(
          request.project_id,
          request.phase_id,
          request.story_ids,
        );
        return { phase: toPhaseMessage(phase), stories: stories.map(toStoryMessage) };
      },
    ),
  };
}
