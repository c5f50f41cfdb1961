import { loadBoardsProto, type boards } from '@flowboard/proto';
import { createGrpcClient, unaryCall, type MetricsRegistry } from '@flowboard/service-kit';
import { storyBatcher } from './story-batcher';

export const BOARDS_SERVICE = 'flowboard.boards.v1.BoardsService';

/** Typed calls to boards with deadlines; what retries is what the proto declares idempotent (CreateBoard, the reads). */
export function createBoardsClient(address: string, deadlineMs: number, metrics?: MetricsRegistry) {
  const { BoardsService } = loadBoardsProto().flowboard.boards.v1;
  const client = createGrpcClient(BoardsService, address, { metrics });
  const options = { deadlineMs };
  const readStory = storyBatcher((projectId, storyIds) =>
    unaryCall(client, 'BatchGetStories', { project_id: projectId, story_ids: storyIds }, options).then(
      (response) => response.stories,
    ),
  );
  return {
    createBoard: (projectId: number) => unaryCall(client, 'CreateBoard', { project_id: projectId }, options),
    listPhases: (projectId: number, where = '') =>
      unaryCall(client, 'ListPhases', { project_id: projectId, where }, options),
    batchListPhases: (projectIds: number[]) =>
      unaryCall(client, 'BatchListPhases', { project_ids: projectIds }, options),
    createStory: (request: boards.CreateStoryRequest) => unaryCall(client, 'CreateStory', request, options),
    /** Gathered with the other reads of this turn of the event loop into one BatchGetStories call. */
    getStory: async (projectId: number, storyId: number) => ({ story: await readStory(projectId, storyId) }),
    listStories: (request: boards.ListStoriesRequest) => unaryCall(client, 'ListStories', request, options),
    updateStory: (request: boards.UpdateStoryRequest) => unaryCall(client, 'UpdateStory', request, options),
    deleteStory: (projectId: number, storyId: number) =>
      unaryCall(client, 'DeleteStory', { project_id: projectId, story_id: storyId }, options),
    updateStories: (request: boards.UpdateStoriesRequest) =>
      unaryCall(client, 'UpdateStories', request, options),
    getPhase: (projectId: number, phaseId: number) =>
      unaryCall(client, 'GetPhase', { project_id: projectId, phase_id: phaseId }, options),
    createPhase: (request: boards.CreatePhaseRequest) => unaryCall(client, 'CreatePhase', request, options),
    updatePhase: (request: boards.UpdatePhaseRequest) => unaryCall(client, 'UpdatePhase', request, options),
    deletePhase: (projectId: number, phaseId: number) =>
      unaryCall(client, 'DeletePhase', { project_id: projectId, phase_id: phaseId }, options),
    reorderPhases: (projectId: number, phaseIds: number[]) =>
      unaryCall(client, 'ReorderPhases', { project_id: projectId, phase_ids: phaseIds }, options),
    listPhaseStories: (request: boards.ListPhaseStoriesRequest) =>
      unaryCall(client, 'ListPhaseStories', request, options),
    reorderPhaseStories: (projectId: number, phaseId: number, storyIds: number[]) =>
      unaryCall(
        client,
        'ReorderPhaseStories',
        { project_id: projectId, phase_id: phaseId, story_ids: storyIds },
        options,
      ),
    listTasks: (request: boards.ListTasksRequest) => unaryCall(client, 'ListTasks', request, options),
    getTask: (projectId: number, storyId: number, taskId: number) =>
      unaryCall(client, 'GetTask', { project_id: projectId, story_id: storyId, task_id: taskId }, options),
    createTask: (request: boards.CreateTaskRequest) => unaryCall(client, 'CreateTask', request, options),
    updateTask: (request: boards.UpdateTaskRequest) => unaryCall(client, 'UpdateTask', request, options),
    deleteTask: (projectId: number, storyId: number, taskId: number) =>
      unaryCall(client, 'DeleteTask', { project_id: projectId, story_id: storyId, task_id: taskId }, options),
    reorderTasks: (request: boards.ReorderTasksRequest) =>
      unaryCall(client, 'ReorderTasks', request, options),
    batchGetStoryTasks: (projectId: number, storyIds: number[]) =>
      unaryCall(client, 'BatchGetStoryTasks', { project_id: projectId, story_ids: storyIds }, options),
    listComments: (request: boards.ListCommentsRequest) =>
      unaryCall(client, 'ListComments', request, options),
    getComment: (projectId: number, storyId: number, commentId: number) =>
      unaryCall(
        client,
        'GetComment',
        { project_id: projectId, story_id: storyId, comment_id: commentId },
        options,
      ),
    createComment: (request: boards.CreateCommentRequest) =>
      unaryCall(client, 'CreateComment', request, options),
    updateComment: (request: boards.UpdateCommentRequest) =>
      unaryCall(client, 'UpdateComment', request, options),
    deleteComment: (request: boards.DeleteCommentRequest) =>
      unaryCall(client, 'DeleteComment', request, options),
    batchGetStoryComments: (projectId: number, storyIds: number[]) =>
      unaryCall(client, 'BatchGetStoryComments', { project_id: projectId, story_ids: storyIds }, options),
    // Story history and metrics, /me/stories (helper 2).
    batchGetStoryHistory: (request: boards.BatchGetStoryHistoryRequest) =>
      unaryCall(client, 'BatchGetStoryHistory', request, options),
    batchGetProjectMetrics: (projectIds: number[]) =>
      unaryCall(client, 'BatchGetProjectMetrics', { project_ids: projectIds }, options),
    listOwnedStories: (request: boards.ListOwnedStoriesRequest) =>
      unaryCall(client, 'ListOwnedStories', request, options),
    // Tags (helper 1).
    listTags: (request: boards.ListTagsRequest) => unaryCall(client, 'ListTags', request, options),
    getTag: (projectId: number, tag: string) =>
      unaryCall(client, 'GetTag', { project_id: projectId, tag }, options),
    createTag: (projectId: number, name: string) =>
      unaryCall(client, 'CreateTag', { project_id: projectId, name }, options),
    updateTag: (request: boards.UpdateTagRequest) => unaryCall(client, 'UpdateTag', request, options),
    deleteTag: (projectId: number, tag: string) =>
      unaryCall(client, 'DeleteTag', { project_id: projectId, tag }, options),
    batchGetTagStories: (projectId: number, tagIds: number[]) =>
      unaryCall(client, 'BatchGetTagStories', { project_id: projectId, tag_ids: tagIds }, options),
    listTagStories: (request: boards.ListTagStoriesRequest) =>
      unaryCall(client, 'ListTagStories', request, options),
    addTagStory: (request: boards.AddTagStoryRequest) => unaryCall(client, 'AddTagStory', request, options),
    setTagStories: (request: boards.SetTagStoriesRequest) =>
      unaryCall(client, 'SetTagStories', request, options),
    removeTagStory: (projectId: number, tag: string, storyId: number) =>
      unaryCall(client, 'RemoveTagStory', { project_id: projectId, tag, story_id: storyId }, options),
    listStoryTags: (request: boards.ListStoryTagsRequest) =>
      unaryCall(client, 'ListStoryTags', request, options),
    addStoryTag: (request: boards.AddStoryTagRequest) => unaryCall(client, 'AddStoryTag', request, options),
    setStoryTags: (request: boards.SetStoryTagsRequest) =>
      unaryCall(client, 'SetStoryTags', request, options),
    removeStoryTag: (projectId: number, storyId: number, tag: string) =>
      unaryCall(client, 'RemoveStoryTag', { project_id: projectId, story_id: storyId, tag }, options),
    batchGetStoryTags: (projectId: number, storyIds: number[]) =>
      unaryCall(client, 'BatchGetStoryTags', { project_id: projectId, story_ids: storyIds }, options),
    close: () => client.close(),
  };
}

export type BoardsClient = ReturnType<typeof createBoardsClient>;
