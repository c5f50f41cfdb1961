import {
  BOARDS_LEGACY_SERVICE,
  boardsLegacyDefinition,
  loadBoardsServices,
  type boards,
} from '@flowboard/proto';
import {
  DomainError,
  requireUser,
  serviceNameOf,
  unary,
  type GrpcServiceRegistration,
  type Logger,
} from '@flowboard/service-kit';
import { Calls } from './calls';

const DEFAULT_PHASES: Array<[string, string]> = [
  ['Backlog', 'Stories that will be worked on someday'],
  ['Ready', 'Stories that are ready to be worked on'],
  ['Working', 'Stories that are currently being worked on'],
  ['Complete', 'Stories that have been completed'],
  ['Archive', 'Stories that are history'],
];

/**
 * A list's page by keyset (README "Sync: cursors and updatedSince"): the items after `after_id` in id order, and
 * whether more follow; or, for a method in `keysetless` (a release before cursor paging), none: the request's
 * keyset ignored and the answer's unset.
 */
function byKeyset<T extends { id: number }>(
  all: T[],
  req: { keyset?: { after_id: number } | null; page_size: number },
): { items: T[]; keyset: { more: boolean } } | undefined {
  if (!req.keyset) return undefined;
  const rest = all.filter((item) => item.id > req.keyset!.after_id).sort((a, b) => a.id - b.id);
  return { items: rest.slice(0, req.page_size), keyset: { more: rest.length > req.page_size } };
}

/** An in-memory boards service: default phases per project, stories numbered per project. */
export class FakeBoards {
  readonly calls = new Calls();
  /** Methods answering as a boards release before cursor paging: the request's keyset ignored, none answered. */
  readonly keysetless = new Set<string>();
  readonly phases = new Map<number, boards.Phase__Output[]>();
  /** CreateBoard answers UNAVAILABLE while set (after the client's retries, the gateway sees it too). */
  createBoardFails = false;
  readonly stories = new Map<string, boards.Story__Output>();
  /** Tasks and comments by `project:story`, in list order. */
  readonly tasks = new Map<string, boards.Task__Output[]>();
  readonly comments = new Map<string, boards.Comment__Output[]>();
  private nextId: number;

  constructor(idBase: number) {
    this.nextId = idBase;
  }

  board(projectId: number): boards.Phase__Output[] {
    let phases = this.phases.get(projectId);
    if (!phases) {
      phases = DEFAULT_PHASES.map(([name, description], index) => ({
        id: ++this.nextId,
        name,
        description,
        index,
        limit: index === 2 ? 3 : 0,
        version: 1,
      }));
      this.phases.set(projectId, phases);
    }
    return phases;
  }

  phase(projectId: number, phaseId: number): boards.Phase__Output {
    const phase = this.board(projectId).find((p) => p.id === phaseId);
    if (!phase) throw new DomainError('NotFound', 'Phase not found.');
    return phase;
  }

  private story(projectId: number, storyId: number): string {
    const key = `${projectId}:${storyId}`;
    if (!this.stories.has(key)) throw new DomainError('NotFound', 'Story not found.');
    return key;
  }

  private tasksOf(projectId: number, storyId: number): boards.Task__Output[] {
    const key = this.story(projectId, storyId);
    if (!this.tasks.has(key)) this.tasks.set(key, []);
    return this.tasks.get(key)!;
  }

  private commentsOf(projectId: number, storyId: number): boards.Comment__Output[] {
    const key = this.story(projectId, storyId);
    if (!this.comments.has(key)) this.comments.set(key, []);
    return this.comments.get(key)!;
  }

  private task(req: { project_id: number; story_id: number; task_id: number }): boards.Task__Output {
    const task = this.tasksOf(req.project_id, req.story_id).find((t) => t.id === req.task_id);
    if (!task) throw new DomainError('NotFound', 'Task not found.');
    return task;
  }

  private comment(req: { project_id: number; story_id: number; comment_id: number }): boards.Comment__Output {
    const comment = this.commentsOf(req.project_id, req.story_id).find((c) => c.id === req.comment_id);
    if (!comment) throw new DomainError('NotFound', 'Comment not found.');
    return comment;
  }

  private keyset<T extends { id: number }>(
    method: string,
    all: T[],
    req: { keyset?: { after_id: number } | null; page_size: number },
  ) {
    return this.keysetless.has(method) ? undefined : byKeyset(all, req);
  }

  /** The six boards services, on one server as in boards itself, over this one in-memory state. */
  registrations(logger: Logger): GrpcServiceRegistration[] {
    const h = <Req, Res>(name: string, fn: (req: Req, userId: number) => Promise<Res>) =>
      unary<Req, Res>(logger, async (req, ctx) => {
        this.calls.record(name, ctx);
        await this.calls.pass(name);
        return fn(req, requireUser(ctx));
      });
    // Tags are tested end to end against the real boards service (test/e2e/test/tags.e2e.test.ts). Here stories
    // carry no tags (`with=tags` gives []), and the other tag RPCs fail loudly if a test reaches them.
    const notFaked = (name: string) =>
      h(name, async () => {
        throw new DomainError('Internal', `${name} is not faked`);
      });
    const tags = {
      ListTags: notFaked('ListTags'),
      GetTag: notFaked('GetTag'),
      CreateTag: notFaked('CreateTag'),
      UpdateTag: notFaked('UpdateTag'),
      DeleteTag: notFaked('DeleteTag'),
      BatchGetTagStories: notFaked('BatchGetTagStories'),
      ListTagStories: notFaked('ListTagStories'),
      AddTagStory: notFaked('AddTagStory'),
      SetTagStories: notFaked('SetTagStories'),
      RemoveTagStory: notFaked('RemoveTagStory'),
      ListStoryTags: notFaked('ListStoryTags'),
      AddStoryTag: notFaked('AddStoryTag'),
      SetStoryTags: notFaked('SetStoryTags'),
      RemoveStoryTag: notFaked('RemoveStoryTag'),
      BatchGetStoryTags: h('BatchGetStoryTags', async (req: boards.BatchGetStoryTagsRequest__Output) => ({
        stories: req.story_ids.map((id) => ({ story_id: id, tags: [] })),
      })),
    };
    // Every RPC in one object (names are unique across the services); each service takes its own below.
    const implementation: boards.StoriesServiceHandlers &
      boards.PhasesServiceHandlers &
      boards.TagsServiceHandlers &
      boards.TasksServiceHandlers &
      boards.CommentsServiceHandlers &
      boards.HistoryServiceHandlers = {
      ...tags,
      CreateBoard: h('CreateBoard', async (req: boards.CreateBoardRequest__Output) => {
        if (this.createBoardFails) throw new DomainError('Unavailable', 'boards is down (fake)');
        return { phases: this.board(req.project_id) };
      }),
      ListPhases: h('ListPhases', async (req: boards.ListPhasesRequest__Output) => ({
        phases: this.board(req.project_id),
      })),
      CreateStory: h('CreateStory', async (req: boards.CreateStoryRequest__Output, userId) => {
        const phases = this.board(req.project_id);
        const phase = req.phase_id ? phases.find((p) => p.id === req.phase_id) : phases[0];
        if (!phase)
          throw new DomainError('InvalidArgument', 'Unknown phase.', { problem: 'invalid-reference' });
        const id = [...this.stories.values()].filter((s) => s.project_id === req.project_id).length + 1;
        const story: boards.Story__Output = {
          version: 1,
          project_id: req.project_id,
          id,
          text: req.text,
          details: req.details,
          size: req.size,
          priority: req.priority,
          color: req.color || 'grey',
          deadline: req.deadline,
          status: phase.index === 0 ? 'planned' : 'started',
          blocked_reason: '',
          phase: { id: phase.id, name: phase.name },
          creator_id: userId,
          owner_id: 0,
          create_time: '2011-02-17T20:01:40',
        };
        this.stories.set(`${req.project_id}:${id}`, story);
        return { story };
      }),
      GetStory: h('GetStory', async (req: boards.GetStoryRequest__Output) => {
        const story = this.stories.get(`${req.project_id}:${req.story_id}`);
        if (!story) throw new DomainError('NotFound', 'Story not found.');
        return { story };
      }),
      BatchGetStories: h('BatchGetStories', async (req: boards.BatchGetStoriesRequest__Output) => ({
        stories: req.story_ids.flatMap((id) => this.stories.get(`${req.project_id}:${id}`) ?? []),
      })),
      ListStories: h('ListStories', async (req: boards.ListStoriesRequest__Output) => {
        const all = [...this.stories.values()].filter((s) => s.project_id === req.project_id);
        const start = (req.page - 1) * req.page_size;
        const stories = all.slice(start, start + req.page_size);
        const story_tags = req.include_tags ? stories.map((s) => ({ story_id: s.id, tags: [] })) : [];
        return { stories, total_items: all.length, story_tags };
      }),
      UpdateStory: h('UpdateStory', async (req: boards.UpdateStoryRequest__Output) => {
        const story = this.stories.get(`${req.project_id}:${req.story_id}`);
        if (!story) throw new DomainError('NotFound', 'Story not found.');
        if (req.update_mask.includes('text')) story.text = req.text;
        if (req.update_mask.includes('owner')) story.owner_id = req.owner_id;
        return { story };
      }),
      DeleteStory: h('DeleteStory', async (req: boards.DeleteStoryRequest__Output) => {
        if (!this.stories.delete(`${req.project_id}:${req.story_id}`))
          throw new DomainError('NotFound', 'Story not found.');
        return {};
      }),
      // Phases and the bulk update: enough for routing and access tests; the rules live in boards' own tests.
      UpdateStories: h('UpdateStories', async (req: boards.UpdateStoriesRequest__Output) => {
        const all = [...this.stories.values()].filter((s) => s.project_id === req.project_id);
        for (const story of all) if (req.update_mask.includes('text')) story.text = req.text;
        return { stories: all.slice(0, req.page_size), total_items: all.length };
      }),
      GetPhase: h('GetPhase', async (req: boards.GetPhaseRequest__Output) => ({
        phase: this.phase(req.project_id, req.phase_id),
      })),
      CreatePhase: h('CreatePhase', async (req: boards.CreatePhaseRequest__Output) => {
        const phases = this.board(req.project_id);
        const index = req.has_index ? req.index : phases.length - 1;
        const phase = {
          id: ++this.nextId,
          name: req.name,
          description: req.description,
          index,
          limit: req.limit,
          version: 1,
        };
        phases.splice(index, 0, phase);
        phases.forEach((p, i) => (p.index = i));
        return { phase };
      }),
      UpdatePhase: h('UpdatePhase', async (req: boards.UpdatePhaseRequest__Output) => {
        const phase = this.phase(req.project_id, req.phase_id);
        if (req.update_mask.includes('name')) phase.name = req.name;
        if (req.update_mask.includes('limit')) phase.limit = req.limit;
        return { phase };
      }),
      DeletePhase: h('DeletePhase', async (req: boards.DeletePhaseRequest__Output) => {
        const phases = this.board(req.project_id);
        phases.splice(phases.indexOf(this.phase(req.project_id, req.phase_id)), 1);
        phases.forEach((p, i) => (p.index = i));
        return {};
      }),
      ReorderPhases: h('ReorderPhases', async (req: boards.ReorderPhasesRequest__Output) => {
        const phases = req.phase_ids.map((id) => this.phase(req.project_id, id));
        phases.forEach((p, i) => (p.index = i));
        this.phases.set(req.project_id, phases);
        return { phases };
      }),
      ListPhaseStories: h('ListPhaseStories', async (req: boards.ListPhaseStoriesRequest__Output) => {
        const phase = this.phase(req.project_id, req.phase_id);
        const stories = [...this.stories.values()].filter(
          (s) => s.project_id === req.project_id && s.phase?.id === phase.id,
        );
        const walked = this.keyset('ListPhaseStories', stories, req);
        if (walked)
          return { phase, stories: walked.items, keyset: walked.keyset, total_items: stories.length };
        const start = (req.page - 1) * req.page_size;
        return { phase, stories: stories.slice(start, start + req.page_size) };
      }),
      ReorderPhaseStories: h(
        'ReorderPhaseStories',
        async (req: boards.ReorderPhaseStoriesRequest__Output) => {
          const phase = this.phase(req.project_id, req.phase_id);
          const stories = req.story_ids.map((id) => this.stories.get(`${req.project_id}:${id}`)!);
          return { phase, stories };
        },
      ),
      // Tasks and comments: routing, access and representation; the rules live in boards' own tests.
      ListTasks: h('ListTasks', async (req: boards.ListTasksRequest__Output) => {
        const all = this.tasksOf(req.project_id, req.story_id);
        const walked = this.keyset('ListTasks', all, req);
        if (walked) return { tasks: walked.items, keyset: walked.keyset, total_items: all.length };
        const start = (req.page - 1) * req.page_size;
        return { tasks: all.slice(start, start + req.page_size), total_items: all.length };
      }),
      GetTask: h('GetTask', async (req: boards.GetTaskRequest__Output) => ({ task: this.task(req) })),
      CreateTask: h('CreateTask', async (req: boards.CreateTaskRequest__Output, userId) => {
        if (!req.text.trim())
          throw new DomainError('InvalidArgument', 'Missing text.', { problem: 'invalid-field' });
        const complete = req.status === 'complete';
        const task: boards.Task__Output = {
          version: 1,
          id: ++this.nextId,
          text: req.text,
          status: complete ? 'complete' : 'incomplete',
          create_time: '2011-02-17T20:02:00',
          finish_time: complete ? '2011-02-17T20:03:17' : '',
          finished_by: complete ? userId : 0,
        };
        this.tasksOf(req.project_id, req.story_id).push(task);
        return { task };
      }),
      UpdateTask: h('UpdateTask', async (req: boards.UpdateTaskRequest__Output, userId) => {
        const task = this.task(req);
        if (req.update_mask.includes('text')) task.text = req.text;
        if (req.update_mask.includes('status')) {
          task.status = req.status;
          task.finish_time = req.status === 'complete' ? '2011-02-17T20:03:17' : '';
          task.finished_by = req.status === 'complete' ? userId : 0;
        }
        return { task };
      }),
      DeleteTask: h('DeleteTask', async (req: boards.DeleteTaskRequest__Output) => {
        const all = this.tasksOf(req.project_id, req.story_id);
        all.splice(all.indexOf(this.task(req)), 1);
        return {};
      }),
      ReorderTasks: h('ReorderTasks', async (req: boards.ReorderTasksRequest__Output) => {
        const tasks = req.task_ids.map((id) => this.task({ ...req, task_id: id }));
        this.tasks.set(this.story(req.project_id, req.story_id), tasks);
        return { tasks, total_items: tasks.length };
      }),
      BatchGetStoryTasks: h('BatchGetStoryTasks', async (req: boards.BatchGetStoryTasksRequest__Output) => ({
        stories: req.story_ids.map((id) => ({
          story_id: id,
          tasks: this.tasks.get(`${req.project_id}:${id}`) ?? [],
        })),
      })),
      ListComments: h('ListComments', async (req: boards.ListCommentsRequest__Output) => {
        const all = this.commentsOf(req.project_id, req.story_id);
        const walked = this.keyset('ListComments', all, req);
        if (walked) return { comments: walked.items, keyset: walked.keyset, total_items: all.length };
        const start = (req.page - 1) * req.page_size;
        return { comments: all.slice(start, start + req.page_size), total_items: all.length };
      }),
      GetComment: h('GetComment', async (req: boards.GetCommentRequest__Output) => ({
        comment: this.comment(req),
      })),
      CreateComment: h('CreateComment', async (req: boards.CreateCommentRequest__Output, userId) => {
        const comment = {
          version: 1,
          id: ++this.nextId,
          text: req.text,
          create_time: '2011-02-17T20:04:00',
          author_id: userId,
        };
        this.commentsOf(req.project_id, req.story_id).push(comment);
        return { comment };
      }),
      UpdateComment: h('UpdateComment', async (req: boards.UpdateCommentRequest__Output, userId) => {
        const comment = this.comment(req);
        if (comment.author_id !== userId) throw new DomainError('PermissionDenied', 'Not the author.');
        if (req.update_mask.includes('text')) comment.text = req.text;
        return { comment };
      }),
      DeleteComment: h('DeleteComment', async (req: boards.DeleteCommentRequest__Output, userId) => {
        const comment = this.comment(req);
        if (!req.is_admin && comment.author_id !== userId)
          throw new DomainError('PermissionDenied', 'Not the author.');
        const all = this.commentsOf(req.project_id, req.story_id);
        all.splice(all.indexOf(comment), 1);
        return {};
      }),
      BatchGetStoryComments: h(
        'BatchGetStoryComments',
        async (req: boards.BatchGetStoryCommentsRequest__Output) => ({
          stories: req.story_ids.map((id) => ({
            story_id: id,
            comments: this.comments.get(`${req.project_id}:${id}`) ?? [],
          })),
        }),
      ),
      // Story history and metrics, /me/stories (helper 2): no history is kept here.
      BatchGetStoryHistory: h(
        'BatchGetStoryHistory',
        async (req: boards.BatchGetStoryHistoryRequest__Output) => ({
          stories: req.story_ids.map((id) => ({ story_id: id, milestones: [], steps: [] })),
        }),
      ),
      BatchGetProjectMetrics: h(
        'BatchGetProjectMetrics',
        async (req: boards.BatchGetProjectMetricsRequest__Output) => ({
          projects: req.project_ids.map((id) => ({ project_id: id })),
        }),
      ),
      BatchListPhases: h('BatchListPhases', async (req: boards.BatchListPhasesRequest__Output) => ({
        projects: [...new Set(req.project_ids)].map((id) => ({
          project_id: id,
          phases: this.phases.get(id) ?? [],
        })),
      })),
      ListOwnedStories: h('ListOwnedStories', async (req: boards.ListOwnedStoriesRequest__Output) => {
        const owned = [...this.stories.values()].filter(
          (s) => s.owner_id === req.owner_id && req.project_ids.includes(s.project_id),
        );
        return { stories: owned, total_items: owned.length };
      }),
      // Search and the bulk writes are boards' own (its integration tests, and the e2e tests against the real stack).
      SearchStories: notFaked('SearchStories'),
      BulkCreateStories: notFaked('BulkCreateStories'),
      BulkUpdateStories: notFaked('BulkUpdateStories'),
    };
    const services = loadBoardsServices().map(({ service }) => ({
      name: serviceNameOf(service),
      definition: service,
      implementation: Object.fromEntries(
        Object.entries(implementation).filter(([method]) => method in service),
      ),
    }));
    // And under the name before the split, which the gateway calls (as boards itself serves it).
    return [
      ...services,
      { name: BOARDS_LEGACY_SERVICE, definition: boardsLegacyDefinition(), implementation },
    ];
  }
}
