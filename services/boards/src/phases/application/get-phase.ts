import { DomainError } from '@flowboard/service-kit';
import { requirePositiveId } from '../../shared/domain/ids';
import type { PhasesStore } from './phases-store';
import type { PhaseRecord } from './ports';

export type GetPhase = (projectId: number, phaseId: number) => Promise<PhaseRecord>;

export const phaseNotFound = () => new DomainError('NotFound', 'Phase not found');

export function makeGetPhase(store: PhasesStore): GetPhase {
  return async (rawProjectId, phaseId) => {
    const projectId = requirePositiveId('project_id', rawProjectId);
    if (!Number.isSafeInteger(phaseId) || phaseId <= 0) throw phaseNotFound();
    const phase = await store.phases.find(projectId, phaseId);
    if (!phase) throw phaseNotFound();
    return phase;
  };
}
