import type { boards } from '@flowboard/proto';
import { requireUser, unary, type Logger } from '@flowboard/service-kit';
import { keysetAnswer } from '../../shared/application/list-window';
import type { StoryUpdate } from '../domain/story';
import type { CreateStoryCommand } from '../application/create-story';
import type { StoriesUseCases } from '../application/stories-use-cases';
import { toStoryMessage } from '../application/story-message';
import { listStoryPage } from './story-pages';

/** The fields UpdateStoryRequest and UpdateStoriesRequest both carry, and the mask that says which are set. */
type UpdateFields = Omit<boards.UpdateStoryRequest__Output, 'project_id' | 'story_id' | 'expected_version'>;

/** A CreateStoryRequest's story (the bulk create's items are these too). */
export function newStory(
  request: boards.CreateStoryRequest__Output,
): Omit<CreateStoryCommand, 'projectId' | 'creatorId'> {
  return {
    text: request.text,
    details: request.details,
    size: request.size,
    priority: request.priority,
    color: request.color,
    phaseId: request.phase_id,
    ownerId: request.owner_id,
    deadline: request.deadline,
    tasks: request.tasks.map((t) => ({ text: t.text, status: t.status })),
    tags: request.tags.map((t) => ({ id: t.id, name: t.name })),
  };
}

/** The request's fields named in `update_mask` (unknown names are ignored). */
export function storyUpdate(request: UpdateFields): StoryUpdate {
  const mask = new Set(request.update_mask);
  const has = (name: string) => mask.has(name);
  return {
    text: has('text') ? request.text : undefined,
    details: has('details') ? request.details : undefined,
    size: has('size') ? request.size : undefined,
    priority: has('priority') ? request.priority : undefined,
    color: has('color') ? request.color : undefined,
    status: has('status') ? request.status : undefined,
    blockedReason: has('blocked_reason') ? request.blocked_reason : undefined,
    phaseId: has('phase') ? request.phase_id : undefined,
    ownerId: has('owner') ? request.owner_id : undefined,
    deadline: has('deadline') ? request.deadline : undefined,
  };
}

/**
 * The tags of a page's stories, as ListStories with include_tags answers them: the tags slice's batch read
 * (tags sit above stories; app.ts gives it).
 */
export type StoryTagsOfPage = (projectId: number, storyIds: number[]) => Promise<boards.StoryTags[]>;

/**
 * StoriesService: gRPC request → use case → response. Errors are mapped by `unary` through service-kit's one
 * table.
 */
export function storiesHandlers(
  logger: Logger,
  useCases: StoriesUseCases,
  storyTags: StoryTagsOfPage,
): Omit<boards.StoriesServiceHandlers, 'SearchStories' | 'BulkCreateStories' | 'BulkUpdateStories'> {
  return {
    CreateStory: unary(
      logger,
      async (request: boards.CreateStoryRequest__Output, ctx): Promise<boards.CreateStoryResponse> => {
        const story = await useCases.createStory({
          ...newStory(request),
          projectId: request.project_id,
          creatorId: requireUser(ctx),
        });
        return { story: toStoryMessage(story) };
      },
    ),

    GetStory: unary(
      logger,
      async (request: boards.GetStoryRequest__Output): Promise<boards.GetStoryResponse> => {
        const story = await useCases.getStory(request.project_id, request.story_id);
        return { story: toStoryMessage(story) };
      },
    ),

    BatchGetStories: unary(
      logger,
      async (request: boards.BatchGetStoriesRequest__Output): Promise<boards.BatchGetStoriesResponse> => {
        const stories = await useCases.batchGetStories(request.project_id, request.story_ids);
        return { stories: stories.map(toStoryMessage) };
      },
    ),

    ListStories: unary(
      logger,
      async (request: boards.ListStoriesRequest__Output): Promise<boards.ListStoriesResponse> => {
        const listed = await listStoryPage(useCases, request);
        if ('gone' in listed) return { stories: [], total_items: 0, story_tags: [], sync_gone: listed.gone };
        const { stories, total, extra } = listed;
        return {
          ...extra,
          stories: stories.map(toStoryMessage),
          total_items: total,
          story_tags: request.include_tags
            ? await storyTags(
                request.project_id,
                stories.map((s) => s.id),
              )
            : [],
        };
      },
    ),

    UpdateStory: unary(
      logger,
      async (request: boards.UpdateStoryRequest__Output, ctx): Promise<boards.UpdateStoryResponse> => {
        const story = await useCases.updateStory({
          ...storyUpdate(request),
          projectId: request.project_id,
          storyId: request.story_id,
          expectedVersion: request.expected_version,
          actorId: requireUser(ctx),
        });
        return { story: toStoryMessage(story) };
      },
    ),

    DeleteStory: unary(
      logger,
      async (request: boards.DeleteStoryRequest__Output, ctx): Promise<boards.DeleteStoryResponse> => {
        await useCases.deleteStory({
          projectId: request.project_id,
          storyId: request.story_id,
          deletedBy: requireUser(ctx),
          requestId: ctx.requestId,
          expectedVersion: request.expected_version,
        });
        return {};
      },
    ),

    UpdateStories: unary(
      logger,
      async (request: boards.UpdateStoriesRequest__Output, ctx): Promise<boards.UpdateStoriesResponse> => {
        const { stories, total } = await useCases.updateStories({
          ...storyUpdate(request),
          actorId: requireUser(ctx),
          projectId: request.project_id,
          where: request.where,
          users: request.users,
          page: request.page,
          pageSize: request.page_size,
        });
        return { stories: stories.map(toStoryMessage), total_items: total };
      },
    ),

    ListOwnedStories: unary(
      logger,
      async (request: boards.ListOwnedStoriesRequest__Output): Promise<boards.ListOwnedStoriesResponse> => {
        const { stories, total, more } = await useCases.listOwnedStories({
          ownerId: request.owner_id,
          projectIds: request.project_ids,
          where: request.where,
          page: request.page,
          pageSize: request.page_size,
          all: request.all,
          ...(request.keyset
            ? { after: { id: request.keyset.after_id, projectId: request.keyset.after_project_id } }
            : {}),
        });
        return { stories: stories.map(toStoryMessage), total_items: total, ...keysetAnswer(more) };
      },
    ),
  };
}
