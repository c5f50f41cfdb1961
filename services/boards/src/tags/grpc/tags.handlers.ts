import type { boards } from '@flowboard/proto';
import { requireUser, unary, type Logger } from '@flowboard/service-kit';
import { keysetAnswer } from '../../shared/application/list-window';
import type { StoryRecord } from '../../stories/application/ports';
import { toStoryMessage } from '../../stories/application/story-message';
import type { TagRecord } from '../application/ports';
import type { TagsUseCases } from '../application/tags-use-cases';
import { storyTagsMessages, toTagMessage } from '../application/tag-message';

/**
 * TagsService: gRPC request → use case → response. Errors are mapped by `unary` through service-kit's one
 * table.
 */
export function tagsHandlers(logger: Logger, useCases: TagsUseCases): boards.TagsServiceHandlers {
  // `more` only from a list paged by keyset: the writes answering a page leave it out, as an ordinary page does.
  const storyPage = ({
    stories,
    total,
    more,
  }: {
    stories: StoryRecord[];
    total: number;
    more?: boolean;
  }): boards.TagStoriesResponse => ({
    stories: stories.map(toStoryMessage),
    total_items: total,
    ...keysetAnswer(more),
  });
  const tagPage = ({
    tags,
    total,
    more,
  }: {
    tags: TagRecord[];
    total: number;
    more?: boolean;
  }): boards.StoryTagsResponse => ({
    tags: tags.map(toTagMessage),
    total_items: total,
    ...keysetAnswer(more),
  });
  return {
    ListTags: unary(logger, async (r: boards.ListTagsRequest__Output): Promise<boards.ListTagsResponse> => {
      const { tags, total, more } = await useCases.listTags({
        projectId: r.project_id,
        where: r.where,
        page: r.page,
        pageSize: r.page_size,
        afterId: r.keyset?.after_id,
      });
      return { tags: tags.map(toTagMessage), total_items: total, ...keysetAnswer(more) };
    }),

    GetTag: unary(logger, async (r: boards.GetTagRequest__Output): Promise<boards.GetTagResponse> => ({
      tag: toTagMessage(await useCases.getTag(r.project_id, r.tag)),
    })),

    CreateTag: unary(
      logger,
      async (r: boards.CreateTagRequest__Output, ctx): Promise<boards.CreateTagResponse> => ({
        tag: toTagMessage(await useCases.createTag(r.project_id, r.name, requireUser(ctx))),
      }),
    ),

    UpdateTag: unary(
      logger,
      async (r: boards.UpdateTagRequest__Output, ctx): Promise<boards.UpdateTagResponse> => ({
        tag: toTagMessage(
          await useCases.updateTag({
            projectId: r.project_id,
            tag: r.tag,
            name: r.update_mask.includes('name') ? r.name : undefined,
            expectedVersion: r.expected_version,
            actorId: requireUser(ctx),
          }),
        ),
      }),
    ),

    DeleteTag: unary(
      logger,
      async (r: boards.DeleteTagRequest__Output, ctx): Promise<boards.DeleteTagResponse> => {
        await useCases.deleteTag({
          projectId: r.project_id,
          tag: r.tag,
          expectedVersion: r.expected_version,
          actorId: requireUser(ctx),
        });
        return {};
      },
    ),

    BatchGetTagStories: unary(
      logger,
      async (r: boards.BatchGetTagStoriesRequest__Output): Promise<boards.BatchGetTagStoriesResponse> => {
        const byTag = await useCases.batchGetTagStories(r.project_id, r.tag_ids);
        return { tags: [...byTag].map(([tagId, stories]) => ({ tag_id: tagId, stories })) };
      },
    ),

    ListTagStories: unary(
      logger,
      async (r: boards.ListTagStoriesRequest__Output): Promise<boards.TagStoriesResponse> =>
        storyPage(
          await useCases.listTagStories({
            projectId: r.project_id,
            tag: r.tag,
            where: r.where,
            page: r.page,
            pageSize: r.page_size,
            users: r.users,
            afterId: r.keyset?.after_id,
          }),
        ),
    ),

    AddTagStory: unary(
      logger,
      async (r: boards.AddTagStoryRequest__Output, ctx): Promise<boards.TagStoriesResponse> =>
        storyPage(
          await useCases.addTagStory({
            projectId: r.project_id,
            tag: r.tag,
            storyId: r.story_id,
            page: r.page,
            pageSize: r.page_size,
            actorId: requireUser(ctx),
          }),
        ),
    ),

    SetTagStories: unary(
      logger,
      async (r: boards.SetTagStoriesRequest__Output, ctx): Promise<boards.TagStoriesResponse> =>
        storyPage(
          await useCases.setTagStories({
            projectId: r.project_id,
            tag: r.tag,
            storyIds: r.story_ids,
            page: r.page,
            pageSize: r.page_size,
            actorId: requireUser(ctx),
          }),
        ),
    ),

    RemoveTagStory: unary(
      logger,
      async (r: boards.RemoveTagStoryRequest__Output, ctx): Promise<boards.RemoveTagStoryResponse> => {
        await useCases.removeTagStory({
          projectId: r.project_id,
          tag: r.tag,
          storyId: r.story_id,
          actorId: requireUser(ctx),
        });
        return {};
      },
    ),

    ListStoryTags: unary(
      logger,
      async (r: boards.ListStoryTagsRequest__Output): Promise<boards.StoryTagsResponse> =>
        tagPage(
          await useCases.listStoryTags({
            projectId: r.project_id,
            storyId: r.story_id,
            where: r.where,
            page: r.page,
            pageSize: r.page_size,
            afterId: r.keyset?.after_id,
          }),
        ),
    ),

    AddStoryTag: unary(
      logger,
      async (r: boards.AddStoryTagRequest__Output, ctx): Promise<boards.StoryTagsResponse> =>
        tagPage(
          await useCases.addStoryTag({
            projectId: r.project_id,
            storyId: r.story_id,
            tags: [{ id: r.tag?.id ?? 0, name: r.tag?.name ?? '' }],
            page: r.page,
            pageSize: r.page_size,
            actorId: requireUser(ctx),
          }),
        ),
    ),

    SetStoryTags: unary(
      logger,
      async (r: boards.SetStoryTagsRequest__Output, ctx): Promise<boards.StoryTagsResponse> =>
        tagPage(
          await useCases.setStoryTags({
            projectId: r.project_id,
            storyId: r.story_id,
            tags: r.tags.map((t) => ({ id: t.id, name: t.name })),
            page: r.page,
            pageSize: r.page_size,
            actorId: requireUser(ctx),
          }),
        ),
    ),

    RemoveStoryTag: unary(
      logger,
      async (r: boards.RemoveStoryTagRequest__Output, ctx): Promise<boards.RemoveStoryTagResponse> => {
        await useCases.removeTagStory({
          projectId: r.project_id,
          tag: r.tag,
          storyId: r.story_id,
          actorId: requireUser(ctx),
        });
        return {};
      },
    ),

    BatchGetStoryTags: unary(
      logger,
      async (r: boards.BatchGetStoryTagsRequest__Output): Promise<boards.BatchGetStoryTagsResponse> => {
        return { stories: storyTagsMessages(await useCases.batchGetStoryTags(r.project_id, r.story_ids)) };
      },
    ),
  };
}
