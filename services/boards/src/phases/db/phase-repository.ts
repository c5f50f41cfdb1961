import { DomainError } from '@flowboard/service-kit';
import { isPgError, PG_FOREIGN_KEY_VIOLATION, type Queryable } from '@flowboard/pg-kit';
import type { PhaseRecord, PhaseRepository } from '../application/ports';

interface PhaseRow {
  id: number;
  project_id: number;
  name: string;
  description: string;
  position: number;
  wip_limit: number | null;
  version: number;
}

const COLUMNS = 'id, project_id, name, description, position, wip_limit, version';

export const toPhaseRecord = (row: PhaseRow): PhaseRecord => ({
  id: row.id,
  projectId: row.project_id,
  name: row.name,
  description: row.description,
  position: row.position,
  wipLimit: row.wip_limit,
  version: row.version,
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

    async listByProjects(projectIds) {
      const result = await db.query<PhaseRow>(
        `SELECT ${COLUMNS} FROM phases WHERE project_id = ANY($1::bigint[]) ORDER BY project_id, position`,
        [projectIds],
      );
      const byProject = new Map<number, PhaseRecord[]>();
      for (const row of result.rows) {
        const phase = toPhaseRecord(row);
        const list = byProject.get(phase.projectId);
        if (list) list.push(phase);
        else byProject.set(phase.projectId, [phase]);
      }
      return byProject;
    },

    async findPlacement(projectId, phaseId) {
      const byId = phaseId !== 'backlog';
      // Named (prepared once per connection), as every create runs one of the two.
      const result = await db.query<PhaseRow & { last_position: number }>({
        name: byId ? 'boards-phase-placement' : 'boards-backlog-placement',
        text: `SELECT ${COLUMNS},
                (SELECT max(position) FROM phases last WHERE last.project_id = p.project_id) AS last_position
         FROM phases p
         WHERE p.project_id = $1 AND ${byId ? 'p.id = $2' : 'p.position = 0'}`,
        values: byId ? [projectId, phaseId] : [projectId],
      });
      const row = result.rows[0];
      return row ? { phase: toPhaseRecord(row), lastPosition: row.last_position } : undefined;
    },

    async find(projectId, phaseId) {
      const result = await db.query<PhaseRow>(
        `SELECT ${COLUMNS} FROM phases WHERE project_id = $1 AND id = $2`,
        [projectId, phaseId],
      );
      const row = result.rows[0];
      return row ? toPhaseRecord(row) : undefined;
    },

    async insertAt(projectId, phase) {
      // phases_position_key is DEFERRABLE: checked at commit, so the shift and the insert need no gap dance.
      await db.query('SET CONSTRAINTS phases_position_key DEFERRED');
      await db.query(
        'UPDATE phases SET position = position + 1, updated_at = now() WHERE project_id = $1 AND position >= $2',
        [projectId, phase.position],
      );
      const result = await db.query<PhaseRow>(
        `INSERT INTO phases (project_id, name, description, position, wip_limit)
         VALUES ($1, $2, $3, $4, $5) RETURNING ${COLUMNS}`,
        [projectId, phase.name, phase.description, phase.position, phase.wipLimit],
      );
      const row = result.rows[0];
      if (!row) throw new Error('phase insert returned no row');
      return toPhaseRecord(row);
    },

    async update(projectId, phaseId, write) {
      await db.query('SET CONSTRAINTS phases_position_key DEFERRED');
      // One statement: the phase takes its new position, the ones in between shift towards the gap.
      const result = await db.query<PhaseRow>(
        `WITH moved AS (SELECT position AS from_pos FROM phases WHERE project_id = $1 AND id = $2)
         UPDATE phases p SET
           position = CASE
             WHEN p.id = $2 THEN $3
             WHEN moved.from_pos < $3 AND p.position > moved.from_pos AND p.position <= $3 THEN p.position - 1
             WHEN moved.from_pos > $3 AND p.position >= $3 AND p.position < moved.from_pos THEN p.position + 1
             ELSE p.position END,
           name = CASE WHEN p.id = $2 THEN $4 ELSE p.name END,
           description = CASE WHEN p.id = $2 THEN $5 ELSE p.description END,
           wip_limit = CASE WHEN p.id = $2 THEN $6 ELSE p.wip_limit END,
           updated_at = now()
         FROM moved
         WHERE p.project_id = $1
           AND (p.id = $2 OR p.position BETWEEN least(moved.from_pos, $3) AND greatest(moved.from_pos, $3))
         RETURNING p.id, p.project_id, p.name, p.description, p.position, p.wip_limit, p.version`,
        [projectId, phaseId, write.position, write.name, write.description, write.wipLimit],
      );
      const row = result.rows.find((r) => r.id === phaseId);
      if (!row) throw new DomainError('NotFound', 'Phase not found');
      return toPhaseRecord(row);
    },

    async holdsStories(projectId, phaseId) {
      const result = await db.query('SELECT 1 FROM stories WHERE project_id = $1 AND phase_id = $2 LIMIT 1', [
        projectId,
        phaseId,
      ]);
      return (result.rowCount ?? 0) > 0;
    },

    async delete(projectId, phaseId) {
      await db.query('SET CONSTRAINTS phases_position_key DEFERRED');
      try {
        const result = await db.query<{ position: number }>(
          'DELETE FROM phases WHERE project_id = $1 AND id = $2 RETURNING position',
          [projectId, phaseId],
        );
        const row = result.rows[0];
        if (!row) return false;
        await db.query(
          'UPDATE phases SET position = position - 1, updated_at = now() WHERE project_id = $1 AND position > $2',
          [projectId, row.position],
        );
        return true;
      } catch (err) {
        // stories_phase_fkey is RESTRICT: a story is still in the phase.
        if (isPgError(err, PG_FOREIGN_KEY_VIOLATION)) {
          throw new DomainError('Conflict', 'The phase still holds stories; move them first.', {
            cause: err,
          });
        }
        throw err;
      }
    },

    async reorder(projectId, phaseIds) {
      await db.query('SET CONSTRAINTS phases_position_key DEFERRED');
      await db.query(
        `UPDATE phases p SET position = t.ord - 1, updated_at = now()
         FROM unnest($2::bigint[]) WITH ORDINALITY AS t(id, ord)
         WHERE p.project_id = $1 AND p.id = t.id AND p.position <> t.ord - 1`,
        [projectId, phaseIds],
      );
    },
  };
}
