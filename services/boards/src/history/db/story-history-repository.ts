import type { Queryable } from '@flowboard/pg-kit';
import type { ChangeAuthor, StoryHistoryRepository } from '../application/ports';

/** Who made the change, on each row it opens (0011_history_authors.sql). */
const AUTHOR_COLUMNS = 'author_id, api_key_id, api_key_name';
const authorValues = (author: ChangeAuthor) => [
  author.userId,
  author.apiKey?.id ?? null,
  author.apiKey?.name ?? null,
];

/**
 * Milestones (stays in a phase) and steps (periods in a status); the open one has no end time. Each write is one
 * statement: story writes hold their board's lock while they run, so every round trip saved is lock time saved.
 */
export function storyHistoryRepository(db: Queryable): StoryHistoryRepository {
  return {
    async open({ projectId, storyId, phaseId, stepType, at, author }) {
      await db.query({
        name: 'boards-history-open',
        text: `WITH milestone AS (
                 INSERT INTO story_milestones (project_id, story_id, phase_id, start_time, ${AUTHOR_COLUMNS})
                 VALUES ($1, $2, $3, $5, $6, $7, $8)
               )
               INSERT INTO story_steps (project_id, story_id, type, start_time, ${AUTHOR_COLUMNS})
               VALUES ($1, $2, $4, $5, $6, $7, $8)`,
        values: [projectId, storyId, phaseId, stepType, at, ...authorValues(author)],
      });
    },

    async transition({ projectId, storyId, phaseId, stepType, author }) {
      if (phaseId === undefined && stepType === undefined) return;
      // Each open row is closed before its successor is written: the successor's start is read from the closing
      // UPDATE's RETURNING, so the UPDATE has run when the INSERT's row is made, and the partial unique index on
      // the open row sees one open row at a time. now() is the transaction's start; a transaction that waited for
      // the board lock may start before the one that opened the row committed, so the end never goes before the
      // start (end_time >= start_time). A NULL phase or type leaves that history alone.
      await db.query({
        name: 'boards-history-transition',
        text: `WITH closed_milestone AS (
                 UPDATE story_milestones SET end_time = greatest(now(), start_time)
                 WHERE $3::bigint IS NOT NULL AND project_id = $1 AND story_id = $2 AND end_time IS NULL
                 RETURNING end_time
               ), opened_milestone AS (
                 INSERT INTO story_milestones (project_id, story_id, phase_id, start_time, ${AUTHOR_COLUMNS})
                 SELECT $1, $2, $3, coalesce((SELECT end_time FROM closed_milestone), now()), $5, $6, $7
                 WHERE $3::bigint IS NOT NULL
               ), closed_step AS (
                 UPDATE story_steps SET end_time = greatest(now(), start_time)
                 WHERE $4::text IS NOT NULL AND project_id = $1 AND story_id = $2 AND end_time IS NULL
                 RETURNING end_time
               )
               INSERT INTO story_steps (project_id, story_id, type, start_time, ${AUTHOR_COLUMNS})
               SELECT $1, $2, $4, coalesce((SELECT end_time FROM closed_step), now()), $5, $6, $7
               WHERE $4::text IS NOT NULL`,
        values: [projectId, storyId, phaseId ?? null, stepType ?? null, ...authorValues(author)],
      });
    },

    async transitionMany(projectId, transitions, author) {
      const wanted = transitions.filter((t) => t.phaseId !== undefined || t.stepType !== undefined);
      if (wanted.length === 0) return;
      // `transition` for many stories at once, with the same order per story: a story's open row is closed before
      // its successor is made, since the INSERT takes the successor's start from the UPDATE's row for that story.
      await db.query({
        name: 'boards-history-transition-many',
        text: `WITH t AS (
                 SELECT * FROM unnest($2::bigint[], $3::bigint[], $4::text[]) AS t(story_id, phase_id, step_type)
               ), closed_milestone AS (
                 UPDATE story_milestones m SET end_time = greatest(now(), m.start_time)
                 FROM t WHERE t.phase_id IS NOT NULL AND m.project_id = $1 AND m.story_id = t.story_id
                          AND m.end_time IS NULL
                 RETURNING m.story_id, m.end_time
               ), opened_milestone AS (
                 INSERT INTO story_milestones (project_id, story_id, phase_id, start_time, ${AUTHOR_COLUMNS})
                 SELECT $1, t.story_id, t.phase_id, coalesce(c.end_time, now()), $5, $6, $7
                 FROM t LEFT JOIN closed_milestone c ON c.story_id = t.story_id
                 WHERE t.phase_id IS NOT NULL
               ), closed_step AS (
                 UPDATE story_steps st SET end_time = greatest(now(), st.start_time)
                 FROM t WHERE t.step_type IS NOT NULL AND st.project_id = $1 AND st.story_id = t.story_id
                          AND st.end_time IS NULL
                 RETURNING st.story_id, st.end_time
               )
               INSERT INTO story_steps (project_id, story_id, type, start_time, ${AUTHOR_COLUMNS})
               SELECT $1, t.story_id, t.step_type, coalesce(c.end_time, now()), $5, $6, $7
               FROM t LEFT JOIN closed_step c ON c.story_id = t.story_id
               WHERE t.step_type IS NOT NULL`,
        values: [
          projectId,
          wanted.map((t) => t.storyId),
          wanted.map((t) => t.phaseId ?? null),
          wanted.map((t) => t.stepType ?? null),
          ...authorValues(author),
        ],
      });
    },
  };
}
