import type { boards } from '@flowboard/proto';
import type { PhaseRecord } from './ports';

/** PhaseRecord → Phase message (the gRPC answer, and the resource of `phase.*` events); no work-in-progress limit is 0 on the wire. */
export const toPhaseMessage = (phase: PhaseRecord): boards.Phase => ({
  id: phase.id,
  name: phase.name,
  description: phase.description,
  index: phase.position,
  limit: phase.wipLimit ?? 0,
  version: phase.version,
});
