import type { boards } from '@flowboard/proto';
import { requireUser, unary, type Logger } from '@flowboard/service-kit';
import type { PhasesUseCases } from '../application/phases-use-cases';
import { toPhaseMessage } from '../application/phase-message';

/** The PhasesService methods about a phase's stories: stories/grpc/phase-stories.handlers.ts serves them. */
export type PhaseStoriesMethods = 'ListPhaseStories' | 'ReorderPhaseStories';

/** The rest of PhasesService, served here; app.ts joins both into one PhasesServiceHandlers. */
type PhasesMethods =
  | 'CreateBoard'
  | 'ListPhases'
  | 'BatchListPhases'
  | 'GetPhase'
  | 'CreatePhase'
  | 'UpdatePhase'
  | 'DeletePhase'
  | 'ReorderPhases';

/**
 * PhasesService but for a phase's stories: gRPC request → use case → response. Errors are mapped by `unary`
 * through service-kit's one table.
 */
export function phasesHandlers(
  logger: Logger,
  useCases: PhasesUseCases,
): Pick<boards.PhasesServiceHandlers, PhasesMethods> {
  return {
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

    GetPhase: unary(
      logger,
      async (request: boards.GetPhaseRequest__Output): Promise<boards.GetPhaseResponse> => ({
        phase: toPhaseMessage(await useCases.getPhase(request.project_id, request.phase_id)),
      }),
    ),

    CreatePhase: unary(
      logger,
      async (request: boards.CreatePhaseRequest__Output, ctx): Promise<boards.CreatePhaseResponse> => {
        const phase = await useCases.createPhase({
          projectId: request.project_id,
          name: request.name,
          description: request.description,
          index: request.has_index ? request.index : undefined,
          limit: request.limit,
          actorId: requireUser(ctx),
        });
        return { phase: toPhaseMessage(phase) };
      },
    ),

    UpdatePhase: unary(
      logger,
      async (request: boards.UpdatePhaseRequest__Output, ctx): Promise<boards.UpdatePhaseResponse> => {
        const mask = new Set(request.update_mask);
        const phase = await useCases.updatePhase({
          projectId: request.project_id,
          phaseId: request.phase_id,
          name: mask.has('name') ? request.name : undefined,
          description: mask.has('description') ? request.description : undefined,
          index: mask.has('index') ? request.index : undefined,
          limit: mask.has('limit') ? request.limit : undefined,
          expectedVersion: request.expected_version,
          actorId: requireUser(ctx),
        });
        return { phase: toPhaseMessage(phase) };
      },
    ),

    DeletePhase: unary(
      logger,
      async (request: boards.DeletePhaseRequest__Output, ctx): Promise<boards.DeletePhaseResponse> => {
        await useCases.deletePhase({
          projectId: request.project_id,
          phaseId: request.phase_id,
          expectedVersion: request.expected_version,
          actorId: requireUser(ctx),
        });
        return {};
      },
    ),

    ReorderPhases: unary(
      logger,
      async (request: boards.ReorderPhasesRequest__Output, ctx): Promise<boards.ReorderPhasesResponse> => {
        const phases = await useCases.reorderPhases(request.project_id, request.phase_ids, requireUser(ctx));
        return { phases: phases.map(toPhaseMessage) };
      },
    ),
  };
}
