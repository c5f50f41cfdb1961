import { createHash } from 'node:crypto';
import type { Queryable } from '@flowboard/pg-kit';
import { compileStoryFilter } from '../../stories/db/story-filter-sql';
import { COLUMNS as STORY_COLUMNS, toStoryRecord, type StoryRow } from '../../stories/db/story-repository';
import type { StorySearchReader } from '../application/ports';
import type { SearchQuery, SearchTerm } from '../domain/search-query';
import { HIGHLIGHT_END, HIGHLIGHT_START, markedSnippet, type MatchedField } from './marked-snippet';

/** The text search configuration the index was built with (migration 0012): stemming and stop words of English. */
const CONFIG = `'english'::regconfig`;

/**
 * A snippet is cut from at most this much of the field: ts_headline parses all it is given, and a page may hold a
 * hundred 100,000-character comments. A match further in shows the field's start, without highlights.
 */
const SNIPPET_SOURCE_CHARACTERS = 20_000;

function termSql(term: SearchTerm, params: unknown[]): string {
  // Prefix stems are letters, digits and '_' only (the parser checks), so quoting them in tsquery syntax is safe.
  params.push(term.kind === 'prefix' ? `'${term.text}':*` : term.text);
  const value = `$${params.length}::text`;
  if (term.kind === 'phrase') return `phraseto_tsquery(${CONFIG}, ${value})`;
  if (term.kind === 'prefix') return `to_tsquery(${CONFIG}, ${value})`;
  return `plainto_tsquery(${CONFIG}, ${value})`;
}

/**
 * The query as two tsquery expressions, every value a parameter: `match` decides which stories match; `any`, the
 * OR of every wanted term, finds where to cut a story's snippet and what to highlight in it.
 */
function compileQuery(query: SearchQuery, params: unknown[]): { match: string; any: string } {
  const clauses: string[] = [];
  const wanted: string[] = [];
  for (const clause of query.clauses) {
    const terms = clause.anyOf.map((term) => termSql(term, params));
    if (!clause.excluded) wanted.push(...terms);
    const either = `(${terms.join(' || ')})`;
    clauses.push(clause.excluded ? `(!! ${either})` : either);
  }
  return { match: clauses.join(' && '), any: wanted.join(' || ') };
}

/**
 * The statement's name when its shape is a common one: no filter, and at most 4 clauses of one wanted term each
 * (what people type: a few words). Planning the statement took about as long as running it (1.3 of 4.8 ms for two
 * words on the 100,000-story board); a named statement is planned once per connection. Other shapes stay unnamed, so
 * that no connection collects a prepared statement per query ever asked (these are at most 3 + 9 + 27 + 81).
 */
export function commonShapeName(query: SearchQuery, filtered: boolean, sql: string): string | undefined {
  const simple =
    !filtered &&
    query.clauses.length <= 4 &&
    query.clauses.every((clause) => !clause.excluded && clause.anyOf.length === 1);
  return simple ? `boards-search-${createHash('sha1').update(sql).digest('hex').slice(0, 16)}` : undefined;
}

interface SearchRow extends StoryRow {
  nodes: number;
  total: string | number;
  score: number;
  field: MatchedField;
  item_id: string | number;
  marked: string;
}

/** Search reads on the pool: no board is locked, and every write it must see has committed before it answers. */
export function storySearchReader(db: Queryable): StorySearchReader {
  return {
    async search({ projectIds, query, filter, users, offset, limit, matchLimit }) {
      if (projectIds.length === 0) return { stories: [], total: 0, moreMatches: false, searchable: true };
      const params: unknown[] = [projectIds];
      const { match, any } = compileQuery(query, params);
      const where = filter ? ` AND ${compileStoryFilter(filter, params, users)}` : '';
      // Only a filter needs the story's columns to decide a match; without one the index and the search row do.
      const filtered = filter
        ? `JOIN stories s ON s.project_id = ss.project_id AND s.id = ss.story_id JOIN phases p ON p.id = s.phase_id`
        : '';
      params.push(matchLimit + 1, limit, offset);
      const [candidates, pageSize, pageStart] = [params.length - 2, params.length - 1, params.length].map(
        (n) => `$${n}::bigint`,
      );
      params.push(
        `StartSel=${HIGHLIGHT_START}, StopSel=${HIGHLIGHT_END}, MinWords=8, MaxWords=24, ShortWord=2, ` +
          `MaxFragments=1, FragmentDelimiter=" … "`,
      );
      const headline = `$${params.length}::text`;
      const snippetOf = (text: string) =>
        `left(translate(${text}, E'\\x01\\x02', ''), ${SNIPPET_SOURCE_CHARACTERS})`;
      // One statement: the total and the page come from one snapshot. The GIN index (projects, document) finds the
      // candidates; at most match_limit + 1 of them are ranked, which bounds the work of a query that matches most of
      // a board (the answer says so). Only the page's rows are joined to their stories and cut into snippets.
      const sql = `WITH q AS MATERIALIZED (SELECT ${match} AS match, ${any} AS any),
         found AS MATERIALIZED (
           SELECT ss.project_id, ss.story_id, ts_rank_cd(ss.document, q.match) AS score
           FROM q, story_search ss ${filtered}
           WHERE ss.projects && $1::bigint[] AND ss.document @@ q.match${where}
           LIMIT ${candidates}
         ), counted AS (SELECT count(*) AS total FROM found)
         SELECT numnode((SELECT match FROM q)) AS nodes, counted.total, page.* FROM counted LEFT JOIN LATERAL (
           SELECT ${STORY_COLUMNS}, f.score, coalesce(m.field, 'text') AS field, coalesce(m.item_id, 0) AS item_id,
                  ts_headline(${CONFIG}, ${snippetOf('coalesce(m.body, s.text)')}, q.any, ${headline}) AS marked
           FROM (SELECT * FROM found ORDER BY score DESC, project_id, story_id DESC
                 LIMIT ${pageSize} OFFSET ${pageStart}) f
           CROSS JOIN q
           JOIN story_search ss ON ss.project_id = f.project_id AND ss.story_id = f.story_id
           JOIN stories s ON s.project_id = f.project_id AND s.id = f.story_id
           JOIN phases p ON p.id = s.phase_id
           -- Where it matched: the first field, in this order, holding a wanted term. Each source's part of the
           -- search row says first whether to look in it at all (text is the part's A weight, details its C).
           -- Append runs its branches in order and LIMIT 1 stops at the first row, so later ones never run.
           LEFT JOIN LATERAL (
             (SELECT 'text' AS field, 0::bigint AS item_id, s.text AS body
              WHERE ts_filter(ss.story_part, '{a}') @@ q.any)
             UNION ALL
             (SELECT 'tag', t.id, t.name FROM story_tags st
              JOIN tags t ON t.project_id = st.project_id AND t.id = st.tag_id
              WHERE ss.tags_part @@ q.any AND st.project_id = s.project_id AND st.story_id = s.id
                AND to_tsvector(${CONFIG}, t.name) @@ q.any
              ORDER BY t.id LIMIT 1)
             UNION ALL
             (SELECT 'details', 0, s.details WHERE ts_filter(ss.story_part, '{c}') @@ q.any)
             UNION ALL
             (SELECT 'task', k.id, k.text FROM tasks k
              WHERE ss.tasks_part @@ q.any AND k.project_id = s.project_id AND k.story_id = s.id
                AND to_tsvector(${CONFIG}, k.text) @@ q.any
              ORDER BY k.position LIMIT 1)
             UNION ALL
             (SELECT 'comment', c.id, c.text FROM comments c
              WHERE ss.comments_part @@ q.any AND c.project_id = s.project_id AND c.story_id = s.id
                AND to_tsvector(${CONFIG}, left(c.text, 200000)) @@ q.any
              ORDER BY c.created_at, c.id LIMIT 1)
             LIMIT 1
           ) m ON true
           ORDER BY f.score DESC, f.project_id, f.story_id DESC
         ) page ON true`;
      const name = commonShapeName(query, filter !== undefined, sql);
      const result = await db.query<SearchRow>({ name, text: sql, values: params });
      const first = result.rows[0];
      if (!first || Number(first.nodes) === 0)
        return { stories: [], total: 0, moreMatches: false, searchable: false };
      const found = Number(first.total);
      const rows = result.rows.filter((r) => r.id !== null);
      return {
        stories: rows.map((row) => ({
          story: toStoryRecord(row),
          match: {
            field: row.field,
            itemId: Number(row.item_id),
            score: row.score,
            ...markedSnippet(row.marked),
          },
        })),
        total: Math.min(found, matchLimit),
        moreMatches: found > matchLimit,
        searchable: true,
      };
    },
  };
}
