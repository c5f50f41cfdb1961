import type { boards } from '@flowboard/proto';
import { requireUser, unary, type Logger } from '@flowboard/service-kit';
import type { CreateBoard } from '../application/create-board';
import type { CreateStory } from '../application/create-story';
import type { BatchGetStories, GetStory } from '../application/get-story';
import type { DeleteStory } from '../application/delete-story';
import type { ListPhases } from '../application/list-phases';
import type { ListStories } from '../application/list-stories';
import type { UpdateStory, UpdateStoryCommand } from '../application/update-story';
import type { CreatePhase } from '../application/create-phase';
import type { DeletePhase } from '../application/delete-phase';
import type { GetPhase } from '../application/get-phase';
import type { ListPhaseStories } from '../application/list-phase-stories';
import type { ReorderPhaseStories } from '../application/reorder-phase-stories';
import type { ReorderPhases } from '../application/reorder-phases';
import type { UpdatePhase } from '../application/update-phase';
import type { UpdateStories } from '../application/update-stories';
import type { ListTasks } from '../application/list-tasks';
import type { GetTask } from '../application/get-task';
import type { CreateTask } from '../application/create-task';
import type { UpdateTask } from '../application/update-task';
import type { DeleteTask } from '../application/delete-task';
import type { ReorderTasks } from '../application/reorder-tasks';
import type { BatchGetStoryTasks } from '../application/batch-get-story-tasks';
import type { ListComments } from '../application/list-comments';
import type { GetComment } from '../application/get-comment';
import type { CreateComment } from '../application/create-comment';
import type { UpdateComment } from '../application/update-comment';
import type { DeleteComment } from '../application/delete-comment';
import type { BatchGetStoryComments } from '../application/batch-get-story-comments';
import type { BatchGetStoryHistory } from '../application/batch-get-story-history';
import type { BatchGetProjectMetrics } from '../application/batch-get-project-metrics';
import type { BatchListPhases } from '../application/batch-list-phases';
import type { ListOwnedStories } from '../application/list-owned-stories';
import type { ListTags } from '../application/list-tags';
import type { GetTag } from '../application/get-tag';
import type { CreateTag } from '../application/create-tag';
import type { UpdateTag } from '../application/update-tag';
import type { DeleteTag } from '../application/delete-tag';
import type { BatchGetTagStories } from '../application/batch-get-tag-stories';
import type { ListTagStories } from '../application/list-tag-stories';
import type { AddTagStory } from '../application/add-tag-story';
import type { SetTagStories } from '../application/set-tag-stories';
import type { RemoveTagStory } from '../application/remove-tag-story';
import type { ListStoryTags } from '../application/list-story-tags';
import type { AddStoryTag, SetStoryTags } from '../application/set-story-tags';
import type { BatchGetStoryTags } from '../application/batch-get-story-tags';
import { toCommentMessage, toPhaseMessage, toStoryMessage, toTaskMessage } from './mappers';
import { toTagMessage } from './mappers';
import type { StoryRecord, TagRecord } from '../application/ports';
import { toProjectMetricsMessage, toStoryHistoryMessage } from './mappers';

export interface BoardsUseCases extends TagUseCases {
  createBoard: CreateBoard;
  listPhases: ListPhases;
  createStory: CreateStory;
  getStory: GetStory;
  batchGetStories: BatchGetStories;
  listStories: ListStories;
  updateStory: UpdateStory;
  deleteStory: DeleteStory;
  updateStories: UpdateStories;
  getPhase: GetPhase;
  createPhase: CreatePhase;
  updatePhase: UpdatePhase;
  deletePhase: DeletePhase;
  reorderPhases: ReorderPhases;
  listPhaseStories: ListPhaseStories;
  reorderPhaseStories: ReorderPhaseStories;
  listTasks: ListTasks;
  getTask: GetTask;
  createTask: CreateTask;
  updateTask: UpdateTask;
  deleteTask: DeleteTask;
  reorderTasks: ReorderTasks;
  batchGetStoryTasks: BatchGetStoryTasks;
  listComments: ListComments;
  getComment: GetComment;
  createComment: CreateComment;
  updateComment: UpdateComment;
  deleteComment: DeleteComment;
  batchGetStoryComments: BatchGetStoryComments;
  batchGetStoryHistory: BatchGetStoryHistory;
  batchGetProjectMetrics: BatchGetProjectMetrics;
  batchListPhases: BatchListPhases;
  listOwnedStories: ListOwnedStories;
}

/** Tags (docs/compat.md §5.5). */
export interface TagUseCases {
  listTags: ListTags;
  getTag: GetTag;
  createTag: CreateTag;
  updateTag: UpdateTag;
  deleteTag: DeleteTag;
  batchGetTagStories: BatchGetTagStories;
  listTagStories: ListTagStories;
  addTagStory: AddTagStory;
  setTagStories: SetTagStories;
  removeTagStory: RemoveTagStory;
  listStoryTags: ListStoryTags;
  addStoryTag: AddStoryTag;
  setStoryTags: SetStoryTags;
  batchGetStoryTags: BatchGetStoryTags;
}

/** The request's fields named in `update_mask`, as an UpdateStoryCommand (unknown names are ignored). */
export function updateCommand(
  request: Omit<boards.UpdateStoryRequest__Output, 'story_id'> & { story_id?: number },
): UpdateStoryCommand {
  const mask = new Set(request.update_mask);
  const has = (name: string) => mask.has(name);
  return {
    projectId: request.project_id,
    storyId: request.story_id ?? 0,
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

/** gRPC request → use case → response. Errors are mapped by `unary` through service-kit's one table. */
export function boardsHandlers(logger: Logger, useCases: BoardsUseCases): boards.BoardsServiceHandlers {
  return {
    ...tagHandlers(logger, useCases),
    CreateBoard: unary(
      logger,
      async (request: boards.CreateBoardRequest__Output): Promise<boards.CreateBoardResponse> => {
        const phases = await useCases.createBoard(request.project_id);
        return { phases: phases.map(toPhaseMessage) };
      },
    ),

    ListPhases: unary(
      logger,
      async (request: boards.ListPhasesRequest__Output): Promise<boards.ListPhasesResponse> => {
        const phases = await useCases.listPhases(request.project_id, request.where);
        return { phases: phases.map(toPhaseMessage) };
      },
    ),

    BatchListPhases: unary(
      logger,
      async (request: boards.BatchListPhasesRequest__Output): Promise<boards.BatchListPhasesResponse> => {
        const byProject = await useCases.batchListPhases(request.project_ids);
        return {
          projects: [...byProject].map(([projectId, phases]) => ({
            project_id: projectId,
            phases: phases.map(toPhaseMessage),
          })),
        };
      },
    ),

    CreateStory: unary(
      logger,
      async (request: boards.CreateStoryRequest__Output, ctx): Promise<boards.CreateStoryResponse> => {
        const story = await useCases.createStory({
          projectId: request.project_id,
          text: request.text,
          details: request.details,
          size: request.size,
          priority: request.priority,
          color: request.color,
          phaseId: request.phase_id,
          ownerId: request.owner_id,
          deadline: request.deadline,
          creatorId: requireUser(ctx),
          tasks: request.tasks.map((t) => ({ text: t.text, status: t.status })),
          tags: request.tags.map((t) => ({ id: t.id, name: t.name })),
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
        const { stories, total } = await useCases.listStories({
          projectId: request.project_id,
          where: request.where,
          page: request.page,
          pageSize: request.page_size,
          users: request.users,
        });
        const tags = request.include_tags
          ? await useCases.batchGetStoryTags(
              request.project_id,
              stories.map((s) => s.id),
            )
          : undefined;
        return {
          stories: stories.map(toStoryMessage),
          total_items: total,
          story_tags: tags ? storyTagsMessages(tags) : [],
        };
      },
    ),

    UpdateStory: unary(
      logger,
      async (request: boards.UpdateStoryRequest__Output): Promise<boards.UpdateStoryResponse> => {
        const story = await useCases.updateStory(updateCommand(request));
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
        });
        return {};
      },
    ),

    UpdateStories: unary(
      logger,
      async (request: boards.UpdateStoriesRequest__Output): Promise<boards.UpdateStoriesResponse> => {
        const { projectId: _p, storyId: _s, ...changes } = updateCommand(request);
        const { stories, total } = await useCases.updateStories({
          ...changes,
          projectId: request.project_id,
          where: request.where,
          users: request.users,
          page: request.page,
          pageSize: request.page_size,
        });
        return { stories: stories.map(toStoryMessage), total_items: total };
      },
    ),

    GetPhase: unary(
      logger,
      async (request: boards.GetPhaseRequest__Output): Promise<boards.GetPhaseResponse> => ({
        phase: toPhaseMessage(await useCases.getPhase(request.project_id, request.phase_id)),
      }),
    ),

    CreatePhase: unary(
      logger,
      async (request: boards.CreatePhaseRequest__Output): Promise<boards.CreatePhaseResponse> => {
        const phase = await useCases.createPhase({
          projectId: request.project_id,
          name: request.name,
          description: request.description,
          index: request.has_index ? request.index : undefined,
          limit: request.limit,
        });
        return { phase: toPhaseMessage(phase) };
      },
    ),

    UpdatePhase: unary(
      logger,
      async (request: boards.UpdatePhaseRequest__Output): Promise<boards.UpdatePhaseResponse> => {
        const mask = new Set(request.update_mask);
        const phase = await useCases.updatePhase({
          projectId: request.project_id,
          phaseId: request.phase_id,
          name: mask.has('name') ? request.name : undefined,
          description: mask.has('description') ? request.description : undefined,
          index: mask.has('index') ? request.index : undefined,
          limit: mask.has('limit') ? request.limit : undefined,
        });
        return { phase: toPhaseMessage(phase) };
      },
    ),

    DeletePhase: unary(
      logger,
      async (request: boards.DeletePhaseRequest__Output): Promise<boards.DeletePhaseResponse> => {
        await useCases.deletePhase(request.project_id, request.phase_id);
        return {};
      },
    ),

    ReorderPhases: unary(
      logger,
      async (request: boards.ReorderPhasesRequest__Output): Promise<boards.ReorderPhasesResponse> => {
        const phases = await useCases.reorderPhases(request.project_id, request.phase_ids);
        return { phases: phases.map(toPhaseMessage) };
      },
    ),

    ListPhaseStories: unary(
      logger,
      async (request: boards.ListPhaseStoriesRequest__Output): Promise<boards.ListPhaseStoriesResponse> => {
        const { phase, stories } = await useCases.listPhaseStories({
          projectId: request.project_id,
          phaseId: request.phase_id,
          where: request.where,
          page: request.page,
          pageSize: request.page_size,
          users: request.users,
        });
        return { phase: toPhaseMessage(phase), stories: stories.map(toStoryMessage) };
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
    ListTasks: unary(
      logger,
      async (request: boards.ListTasksRequest__Output): Promise<boards.ListTasksResponse> => {
        const { tasks, total } = await useCases.listTasks({
          projectId: request.project_id,
          storyId: request.story_id,
          where: request.where,
          page: request.page,
          pageSize: request.page_size,
        });
        return { tasks: tasks.map(toTaskMessage), total_items: total };
      },
    ),

    GetTask: unary(
      logger,
      async (request: boards.GetTaskRequest__Output): Promise<boards.GetTaskResponse> => ({
        task: toTaskMessage(await useCases.getTask(request.project_id, request.story_id, request.task_id)),
      }),
    ),

    CreateTask: unary(
      logger,
      async (request: boards.CreateTaskRequest__Output, ctx): Promise<boards.CreateTaskResponse> => ({
        task: toTaskMessage(
          await useCases.createTask({
            projectId: request.project_id,
            storyId: request.story_id,
            text: request.text,
            status: request.status,
            callerId: requireUser(ctx),
          }),
        ),
      }),
    ),

    UpdateTask: unary(
      logger,
      async (request: boards.UpdateTaskRequest__Output, ctx): Promise<boards.UpdateTaskResponse> => {
        const mask = new Set(request.update_mask);
        const task = await useCases.updateTask({
          projectId: request.project_id,
          storyId: request.story_id,
          taskId: request.task_id,
          text: mask.has('text') ? request.text : undefined,
          status: mask.has('status') ? request.status : undefined,
          callerId: requireUser(ctx),
        });
        return { task: toTaskMessage(task) };
      },
    ),

    DeleteTask: unary(
      logger,
      async (request: boards.DeleteTaskRequest__Output): Promise<boards.DeleteTaskResponse> => {
        await useCases.deleteTask(request.project_id, request.story_id, request.task_id);
        return {};
      },
    ),

    ReorderTasks: unary(
      logger,
      async (request: boards.ReorderTasksRequest__Output): Promise<boards.ReorderTasksResponse> => {
        const { tasks, total } = await useCases.reorderTasks({
          projectId: request.project_id,
          storyId: request.story_id,
          taskIds: request.task_ids,
          page: request.page,
          pageSize: request.page_size,
        });
        return { tasks: tasks.map(toTaskMessage), total_items: total };
      },
    ),

    BatchGetStoryTasks: unary(
      logger,
      async (
        request: boards.BatchGetStoryTasksRequest__Output,
      ): Promise<boards.BatchGetStoryTasksResponse> => {
        const byStory = await useCases.batchGetStoryTasks(request.project_id, request.story_ids);
        return {
          stories: [...byStory].map(([storyId, tasks]) => ({
            story_id: storyId,
            tasks: tasks.map(toTaskMessage),
          })),
        };
      },
    ),

    ListComments: unary(
      logger,
      async (request: boards.ListCommentsRequest__Output): Promise<boards.ListCommentsResponse> => {
        const { comments, total } = await useCases.listComments({
          projectId: request.project_id,
          storyId: request.story_id,
          where: request.where,
          page: request.page,
          pageSize: request.page_size,
        });
        return { comments: comments.map(toCommentMessage), total_items: total };
      },
    ),

    GetComment: unary(
      logger,
      async (request: boards.GetCommentRequest__Output): Promise<boards.GetCommentResponse> => ({
        comment: toCommentMessage(
          await useCases.getComment(request.project_id, request.story_id, request.comment_id),
        ),
      }),
    ),

    CreateComment: unary(
      logger,
      async (request: boards.CreateCommentRequest__Output, ctx): Promise<boards.CreateCommentResponse> => ({
        comment: toCommentMessage(
          await useCases.createComment({
            projectId: request.project_id,
            storyId: request.story_id,
            text: request.text,
            callerId: requireUser(ctx),
          }),
        ),
      }),
    ),

    UpdateComment: unary(
      logger,
      async (request: boards.UpdateCommentRequest__Output, ctx): Promise<boards.UpdateCommentResponse> => ({
        comment: toCommentMessage(
          await useCases.updateComment({
            projectId: request.project_id,
            storyId: request.story_id,
            commentId: request.comment_id,
            text: request.update_mask.includes('text') ? request.text : undefined,
            callerId: requireUser(ctx),
          }),
        ),
      }),
    ),

    DeleteComment: unary(
      logger,
      async (request: boards.DeleteCommentRequest__Output, ctx): Promise<boards.DeleteCommentResponse> => {
        await useCases.deleteComment({
          projectId: request.project_id,
          storyId: request.story_id,
          commentId: request.comment_id,
          callerId: requireUser(ctx),
          isAdmin: request.is_admin,
        });
        return {};
      },
    ),

    BatchGetStoryComments: unary(
      logger,
      async (
        request: boards.BatchGetStoryCommentsRequest__Output,
      ): Promise<boards.BatchGetStoryCommentsResponse> => {
        const byStory = await useCases.batchGetStoryComments(request.project_id, request.story_ids);
        return {
          stories: [...byStory].map(([storyId, comments]) => ({
            story_id: storyId,
            comments: comments.map(toCommentMessage),
          })),
        };
      },
    ),

    BatchGetStoryHistory: unary(
      logger,
      async (
        request: boards.BatchGetStoryHistoryRequest__Output,
      ): Promise<boards.BatchGetStoryHistoryResponse> => {
        const byStory = await useCases.batchGetStoryHistory(request.project_id, request.story_ids, {
          milestones: request.milestones,
          steps: request.steps,
          metrics: request.metrics,
        });
        return { stories: [...byStory].map(([storyId, history]) => toStoryHistoryMessage(storyId, history)) };
      },
    ),

    BatchGetProjectMetrics: unary(
      logger,
      async (
        request: boards.BatchGetProjectMetricsRequest__Output,
      ): Promise<boards.BatchGetProjectMetricsResponse> => {
        const byProject = await useCases.batchGetProjectMetrics(request.project_ids);
        return {
          projects: [...byProject].map(([projectId, metrics]) => toProjectMetricsMessage(projectId, metrics)),
        };
      },
    ),

    ListOwnedStories: unary(
      logger,
      async (request: boards.ListOwnedStoriesRequest__Output): Promise<boards.ListOwnedStoriesResponse> => {
        const { stories, total } = await useCases.listOwnedStories({
          ownerId: request.owner_id,
          projectIds: request.project_ids,
          where: request.where,
          page: request.page,
          pageSize: request.page_size,
          all: request.all,
        });
        return { stories: stories.map(toStoryMessage), total_items: total };
      },
    ),
  };
}

// ---- Tags (helper 1) ----

type TagHandlerNames =
  | 'ListTags'
  | 'GetTag'
  | 'CreateTag'
  | 'UpdateTag'
  | 'DeleteTag'
  | 'BatchGetTagStories'
  | 'ListTagStories'
  | 'AddTagStory'
  | 'SetTagStories'
  | 'RemoveTagStory'
  | 'ListStoryTags'
  | 'AddStoryTag'
  | 'SetStoryTags'
  | 'RemoveStoryTag'
  | 'BatchGetStoryTags';

/** The tag RPCs: request → tag use case → response. */
function tagHandlers(
  logger: Logger,
  useCases: TagUseCases,
): Pick<boards.BoardsServiceHandlers, TagHandlerNames> {
  const storyPage = ({
    stories,
    total,
  }: {
    stories: StoryRecord[];
    total: number;
  }): boards.TagStoriesResponse => ({
    stories: stories.map(toStoryMessage),
    total_items: total,
  });
  const tagPage = ({ tags, total }: { tags: TagRecord[]; total: number }): boards.StoryTagsResponse => ({
    tags: tags.map(toTagMessage),
    total_items: total,
  });
  return {
    ListTags: unary(logger, async (r: boards.ListTagsRequest__Output): Promise<boards.ListTagsResponse> => {
      const { tags, total } = await useCases.listTags({
        projectId: r.project_id,
        where: r.where,
        page: r.page,
        pageSize: r.page_size,
      });
      return { tags: tags.map(toTagMessage), total_items: total };
    }),

    GetTag: unary(logger, async (r: boards.GetTagRequest__Output): Promise<boards.GetTagResponse> => ({
      tag: toTagMessage(await useCases.getTag(r.project_id, r.tag)),
    })),

    CreateTag: unary(
      logger,
      async (r: boards.CreateTagRequest__Output): Promise<boards.CreateTagResponse> => ({
        tag: toTagMessage(await useCases.createTag(r.project_id, r.name)),
      }),
    ),

    UpdateTag: unary(
      logger,
      async (r: boards.UpdateTagRequest__Output): Promise<boards.UpdateTagResponse> => ({
        tag: toTagMessage(
          await useCases.updateTag({
            projectId: r.project_id,
            tag: r.tag,
            name: r.update_mask.includes('name') ? r.name : undefined,
          }),
        ),
      }),
    ),

    DeleteTag: unary(
      logger,
      async (r: boards.DeleteTagRequest__Output): Promise<boards.DeleteTagResponse> => {
        await useCases.deleteTag(r.project_id, r.tag);
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
          }),
        ),
    ),

    AddTagStory: unary(
      logger,
      async (r: boards.AddTagStoryRequest__Output): Promise<boards.TagStoriesResponse> =>
        storyPage(
          await useCases.addTagStory({
            projectId: r.project_id,
            tag: r.tag,
            storyId: r.story_id,
            page: r.page,
            pageSize: r.page_size,
          }),
        ),
    ),

    SetTagStories: unary(
      logger,
      async (r: boards.SetTagStoriesRequest__Output): Promise<boards.TagStoriesResponse> =>
        storyPage(
          await useCases.setTagStories({
            projectId: r.project_id,
            tag: r.tag,
            storyIds: r.story_ids,
            page: r.page,
            pageSize: r.page_size,
          }),
        ),
    ),

    RemoveTagStory: unary(
      logger,
      async (r: boards.RemoveTagStoryRequest__Output): Promise<boards.RemoveTagStoryResponse> => {
        await useCases.removeTagStory({ projectId: r.project_id, tag: r.tag, storyId: r.story_id });
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
          }),
        ),
    ),

    AddStoryTag: unary(
      logger,
      async (r: boards.AddStoryTagRequest__Output): Promise<boards.StoryTagsResponse> =>
        tagPage(
          await useCases.addStoryTag({
            projectId: r.project_id,
            storyId: r.story_id,
            tags: [{ id: r.tag?.id ?? 0, name: r.tag?.name ?? '' }],
            page: r.page,
            pageSize: r.page_size,
          }),
        ),
    ),

    SetStoryTags: unary(
      logger,
      async (r: boards.SetStoryTagsRequest__Output): Promise<boards.StoryTagsResponse> =>
        tagPage(
          await useCases.setStoryTags({
            projectId: r.project_id,
            storyId: r.story_id,
            tags: r.tags.map((t) => ({ id: t.id, name: t.name })),
            page: r.page,
            pageSize: r.page_size,
          }),
        ),
    ),

    RemoveStoryTag: unary(
      logger,
      async (r: boards.RemoveStoryTagRequest__Output): Promise<boards.RemoveStoryTagResponse> => {
        await useCases.removeTagStory({ projectId: r.project_id, tag: r.tag, storyId: r.story_id });
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

const storyTagsMessages = (byStory: ReadonlyMap<number, TagRecord[]>): boards.StoryTags[] =>
  [...byStory].map(([storyId, tags]) => ({ story_id: storyId, tags: tags.map(toTagMessage) }));
