import { loadBoardsProto, type boards } from '@flowboard/proto';
import {
  DomainError,
  requireUser,
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

/** An in-memory boards service: default phases per project, stories numbered per project. */
export class FakeBoards {
  readonly calls = new Calls();
  readonly phases = new Map<number, boards.Phase__Output[]>();
  readonly stories = new Map<string, boards.Story__Output>();
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

  registration(logger: Logger): GrpcServiceRegistration {
    const { BoardsService } = loadBoardsProto().flowboard.boards.v1;
    const h = <Req, Res>(name: string, fn: (req: Req, userId: number) => Promise<Res>) =>
      unary<Req, Res>(logger, async (req, ctx) => {
        this.calls.record(name, ctx);
        return fn(req, requireUser(ctx));
      });
    const implementation: boards.BoardsServiceHandlers = {
      CreateBoard: h('CreateBoard', async (req: boards.CreateBoardRequest__Output) => ({
        phases: this.board(req.project_id),
      })),
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
      ListStories: h('ListStories', async (req: boards.ListStoriesRequest__Output) => {
        const all = [...this.stories.values()].filter((s) => s.project_id === req.project_id);
        const start = (req.page - 1) * req.page_size;
        return { stories: all.slice(start, start + req.page_size), total_items: all.length };
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
        return { phase, stories };
      }),
      ReorderPhaseStories: h(
        'ReorderPhaseStories',
        async (req: boards.ReorderPhaseStoriesRequest__Output) => {
          const phase = this.phase(req.project_id, req.phase_id);
          const stories = req.story_ids.map((id) => this.stories.get(`${req.project_id}:${id}`)!);
          return { phase, stories };
        },
      ),
    };
    return { name: 'flowboard.boards.v1.BoardsService', definition: BoardsService.service, implementation };
  }
}
