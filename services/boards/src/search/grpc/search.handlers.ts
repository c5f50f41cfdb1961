import type { boards } from '@flowboard/proto';
import { unary, type Logger } from '@flowboard/service-kit';
import { toStoryMessage } from '../../stories/application/story-message';
import type { SearchStories } from '../application/search-stories';

/** StoriesService.SearchStories: served by this slice, which reads above stories (tags, tasks, comments). */
export function searchHandlers(
  logger: Logger,
  searchStories: SearchStories,
): Pick<boards.StoriesServiceHandlers, 'SearchStories'> {
  return {
    SearchStories: unary(
      logger,
      async (request: boards.SearchStoriesRequest__Output): Promise<boards.SearchStoriesResponse> => {
        const result = await searchStories({
          projectIds: request.project_ids,
          text: request.query,
          where: request.where,
          users: request.users,
          page: request.page,
          pageSize: request.page_size,
        });
        return {
          stories: result.stories.map(({ story }) => toStoryMessage(story)),
          matches: result.stories.map(({ match }) => ({
            field: match.field,
            item_id: match.itemId,
            snippet: match.snippet,
            highlights: match.highlights,
            score: match.score,
          })),
          total_items: result.total,
          match_limit: result.matchLimit,
          more_matches: result.moreMatches,
        };
      },
    ),
  };
}
