import type { Queryable } from '@flowboard/pg-kit';
import type { PhaseRecord, PhaseRepository } from '../application/ports';

interface PhaseRow {
  id: number;
  project_id: number;
  name: string;
  description: string;
  position: number;
  wip_limit: number | null;
}

const COLUMNS = 'id, project_id, name, description, position, wip_limit';

export const toPhaseRecord = (row: PhaseRow): PhaseRecord => ({
  id: row.id,
  projectId: row.project_id,
  name: row.name,
  description: row.description,
  position: row.position,
  wipLimit: row.wip_limit,
});

export function phaseRepository(db: Queryable): PhaseRepository {
  return {
    async insertMany(projectId, phases) {
      // One statement: positions follow the array order.
      await db.query(
        `INSERT INTO phases (project_id, name, description, position)
         SELECT $1, t.name, t.description, t.ord - 1
         FROM unnest($2::text[], $3::text[]) WITH ORDINALITY AS t(name, description, ord)`,
        [projectId, phases.map((p) => p.name), phases.map((p) => p.description)],
      );
    },

    async listByProject(projectId) {
      const result = await db.query<PhaseRow>(
        `SELECT ${COLUMNS} FROM phases WHERE project_id = $1 ORDER BY position`,
        [projectId],
      );
      return result.rows.map(toPhaseRecord);
    },

    async findPlacement(projectId, phaseId) {
      const byId = phaseId !== 'backlog';
      const result = await db.query<PhaseRow & { last_position: number }>(
        `SELECT ${COLUMNS},
                (SELECT max(position) FROM phases last WHERE last.project_id = p.project_id) AS last_position
         FROM phases p
         WHERE p.project_id = $1 AND ${byId ? 'p.id = $2' : 'p.position = 0'}`,
        byId ? [projectId, phaseId] : [projectId],
      );
      const row = result.rows[0];
      return row ? { phase: toPhaseRecord(row), lastPosition: row.last_position } : undefined;
    },
  };
}
