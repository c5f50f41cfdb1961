import type { boards } from '@flowboard/proto';
import { requireUser, unary, type Logger } from '@flowboard/service-kit';
import { toStoryMessage } from '../../stories/application/story-message';
import { newStory, storyUpdate } from '../../stories/grpc/stories.handlers';
import type { BulkCreateStories, BulkOutcome, BulkUpdateStories } from '../application/bulk-stories';

function outcomeMessage(outcome: BulkOutcome): boards.BulkStoryOutcome {
  if (outcome.done) return { story: toStoryMessage(outcome.story) };
  if ('notAppliedBecause' in outcome) return { not_applied: true, failed_index: outcome.notAppliedBecause };
  return { error_kind: outcome.error.kind, problem: outcome.error.problem, message: outcome.error.message };
}

/** StoriesService's bulk writes: served by this slice, which writes stories with their tags. */
export function bulkHandlers(
  logger: Logger,
  useCases: { bulkCreateStories: BulkCreateStories; bulkUpdateStories: BulkUpdateStories },
): Pick<boards.StoriesServiceHandlers, 'BulkCreateStories' | 'BulkUpdateStories'> {
  return {
    BulkCreateStories: unary(
      logger,
      async (request: boards.BulkCreateStoriesRequest__Output, ctx): Promise<boards.BulkStoriesResponse> => {
        const outcomes = await useCases.bulkCreateStories({
          projectId: request.project_id,
          creatorId: requireUser(ctx),
          stories: request.stories.map(newStory),
          atomic: request.atomic,
        });
        return { outcomes: outcomes.map(outcomeMessage) };
      },
    ),

    BulkUpdateStories: unary(
      logger,
      async (request: boards.BulkUpdateStoriesRequest__Output, ctx): Promise<boards.BulkStoriesResponse> => {
        const outcomes = await useCases.bulkUpdateStories({
          projectId: request.project_id,
          actorId: requireUser(ctx),
          atomic: request.atomic,
          stories: request.stories.map((item) => ({
            storyId: item.update?.story_id ?? 0,
            update: item.update ? storyUpdate(item.update) : {},
            expectedVersion: item.update?.expected_version,
            tags: item.set_tags ? item.tags.map((t) => ({ id: t.id, name: t.name })) : undefined,
          })),
        });
        return { outcomes: outcomes.map(outcomeMessage) };
      },
    ),
  };
}
