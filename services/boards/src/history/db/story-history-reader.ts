import type { Queryable } from '@flowboard/pg-kit';
import type { StepType } from '../domain/steps';
import type {
  FinishedStoryHistory,
  MilestoneRecord,
  StepRecord,
  StoryHistoryReader,
} from '../application/ports';

interface AuthorColumns {
  author_id: number | null;
  api_key_id: number | null;
  api_key_name: string | null;
}

interface MilestoneRow extends AuthorColumns {
  id: number;
  story_id: number;
  phase_id: number;
  phase_name: string;
  start_time: Date;
  end_time: Date | null;
}

interface StepRow extends Partial<AuthorColumns> {
  id: number;
  project_id: number;
  story_id: number;
  type: StepType;
  start_time: Date;
  end_time: Date | null;
}

/**
 * `{author}` of a row, when it has one (rows from before 0011_history_authors.sql have none; the metrics' query
 * does not read them).
 */
const authorOf = (row: Partial<AuthorColumns>): Pick<StepRecord, 'author'> =>
  row.author_id == null
    ? {}
    : {
        author: {
          userId: Number(row.author_id),
          ...(row.api_key_id == null
            ? {}
            : { apiKey: { id: Number(row.api_key_id), name: row.api_key_name ?? '' } }),
        },
      };

const toStep = (row: StepRow): StepRecord => ({
  id: row.id,
  storyId: row.story_id,
  type: row.type,
  start: row.start_time,
  end: row.end_time,
  ...authorOf(row),
});

/** Reads of story history for enrichments and metrics; every query is one batched statement. */
export function storyHistoryReader(db: Queryable): StoryHistoryReader {
  return {
    async milestonesFor(projectId, storyIds): Promise<MilestoneRecord[]> {
      if (storyIds.length === 0) return [];
      // story_milestones_story_idx (project_id, story_id, id); the phase by primary key.
      const result = await db.query<MilestoneRow>(
        `SELECT m.id, m.story_id, m.phase_id, p.name AS phase_name, m.start_time, m.end_time,
                m.author_id, m.api_key_id, m.api_key_name
         FROM story_milestones m JOIN phases p ON p.id = m.phase_id
         WHERE m.project_id = $1 AND m.story_id = ANY($2::bigint[])
         ORDER BY m.story_id, m.id`,
        [projectId, storyIds],
      );
      return result.rows.map((row) => ({
        id: row.id,
        storyId: row.story_id,
        phase: { id: row.phase_id, name: row.phase_name },
        start: row.start_time,
        end: row.end_time,
        ...authorOf(row),
      }));
    },

    async stepsFor(projectId, storyIds) {
      if (storyIds.length === 0) return [];
      // story_steps_story_idx (project_id, story_id, id).
      const result = await db.query<StepRow>(
        `SELECT id, project_id, story_id, type, start_time, end_time, author_id, api_key_id, api_key_name
         FROM story_steps
         WHERE project_id = $1 AND story_id = ANY($2::bigint[])
         ORDER BY story_id, id`,
        [projectId, storyIds],
      );
      return result.rows.map(toStep);
    },

    async createdAtFor(projectId, storyIds) {
      if (storyIds.length === 0) return new Map();
      const result = await db.query<{ id: number; created_at: Date }>(
        'SELECT id, created_at FROM stories WHERE project_id = $1 AND id = ANY($2::bigint[])',
        [projectId, storyIds],
      );
      return new Map(result.rows.map((r) => [r.id, r.created_at]));
    },

    async finishedSince(projectIds, since): Promise<FinishedStoryHistory[]> {
      if (projectIds.length === 0) return [];
      // story_steps_finished_idx finds the stories now in Archive that entered it in the window; their steps
      // come by story_steps_story_idx. One statement, so the set and the steps agree.
      const result = await db.query<StepRow & { created_at: Date }>(
        `WITH finished AS (
           SELECT project_id, story_id FROM story_steps
           WHERE project_id = ANY($1::bigint[]) AND end_time IS NULL AND type = 'archive' AND start_time >= $2
         )
         SELECT st.id, st.project_id, st.story_id, st.type, st.start_time, st.end_time, s.created_at
         FROM finished f
         JOIN stories s ON s.project_id = f.project_id AND s.id = f.story_id
         JOIN story_steps st ON st.project_id = f.project_id AND st.story_id = f.story_id
         ORDER BY st.project_id, st.story_id, st.id`,
        [projectIds, since],
      );
      const stories: FinishedStoryHistory[] = [];
      for (const row of result.rows) {
        let last = stories.at(-1);
        if (!last || last.projectId !== row.project_id || last.storyId !== row.story_id) {
          last = { projectId: row.project_id, storyId: row.story_id, createdAt: row.created_at, steps: [] };
          stories.push(last);
        }
        last.steps.push(toStep(row));
      }
      return stories;
    },
  };
}
