import { DomainError } from '@flowboard/service-kit';
import type { boards } from '@flowboard/proto';
import type { Dto } from '@flowboard/representation';
import { pageDto, pageOnly, type Paging } from '../../wire/page';
import { page, type Reply } from '../../wire/respond';
import type { Call } from '../call';
import { get, resourceOperations } from '../operation';
import type { RouteDeps } from './deps';
import { P, V1 } from './paths';
import { MAX_SEARCH_PAGE_SIZE } from './stories.schemas';
import {
  filterUsers,
  readableProjects,
  servableFromCache,
  STORY_ENRICHMENTS,
  storyDtosAcrossProjects,
  storyDtosFor,
} from './story-views';

/** `q`: required, once. What it may hold is boards' to say (its 400s name the problem). */
function searchText(call: Call): string {
  const values = call.query.getAll('q');
  if (values.length !== 1 || (values[0] as string).trim() === '')
    throw new DomainError(
      'InvalidArgument',
      "Query argument 'q' is required, once: the words to search for.",
      {
        problem: 'invalid-parameter',
      },
    );
  return values[0] as string;
}

/** `page`/`pageSize`, the size clamped; ranked, a search is no walk: `cursor` is a 400 before any call. */
function searchPaging(call: Call): Paging {
  const paging = pageOnly(call.paging(), 'A search is ranked, not walked');
  return { ...paging, pageSize: Math.min(paging.pageSize, MAX_SEARCH_PAGE_SIZE) };
}

/** `match`: where the story matched, as SearchStories found it (`id` only for a tag, task or comment). */
function matchDto(match: boards.SearchMatch__Output | undefined): Dto {
  if (!match) throw new DomainError('Internal', 'boards returned a story without its match');
  return {
    field: match.field,
    id: match.item_id === 0 ? undefined : match.item_id,
    snippet: match.snippet,
    highlights: match.highlights.map((h) => ({ start: h.start, length: h.length })),
    score: Math.round(match.score * 1e6) / 1e6,
  };
}

/** The page envelope with what bounds a search: how many matches it ranks, and whether more matched. */
function searchPage(dtos: Dto[], found: boards.SearchStoriesResponse__Output, paging: Paging): Reply {
  const items = dtos.map((dto, i) => ({ ...dto, match: matchDto(found.matches[i]) }));
  return page('story', {
    ...pageDto(items, paging, found.total_items),
    matchLimit: found.match_limit,
    moreMatches: found.more_matches,
  });
}

/**
 * Full-text search (README "Search"): one project's stories, or those of every project the caller may read,
 * ranked, each with where it matched. One membership call (for /me/search, or a filter naming users), one boards
 * call, then the page's stories rendered as every story list renders them.
 */
export function searchHandlers(deps: RouteDeps) {
  const { membership, boards } = deps;

  return {
    async project(call: Call): Promise<Reply> {
      const { projectId } = call.project;
      const enrich = call.enrichments(STORY_ENRICHMENTS);
      const paging = searchPaging(call);
      const text = searchText(call);
      const where = call.query.get('where') ?? '';
      const found = await boards.searchStories({
        project_ids: [projectId],
        query: text,
        where,
        users: await filterUsers(membership, projectId, where),
        page: paging.page,
        page_size: paging.pageSize,
      });
      return searchPage(await storyDtosFor(deps, call, found.stories, enrich), found, paging);
    },

    async mine(call: Call): Promise<Reply> {
      const enrich = call.enrichments(STORY_ENRICHMENTS);
      const paging = searchPaging(call);
      const text = searchText(call);
      const names = await readableProjects(membership, call.key);
      const found = await boards.searchStories({
        project_ids: [...names.keys()],
        query: text,
        where: call.query.get('where') ?? '',
        users: [],
        page: paging.page,
        page_size: paging.pageSize,
      });
      return searchPage(await storyDtosAcrossProjects(deps, found.stories, names, enrich), found, paging);
    },
  };
}

const QUERY_PARAMETER = {
  name: 'q',
  in: 'query',
  required: true,
  description:
    'What to find: words (all must match, in any of the fields), `"a phrase"`, `prefix*` (2 characters at least), ' +
    '`-excluded`, and `OR` between two terms. Case and English word endings do not matter; punctuation is ' +
    'ignored. At most 256 characters and 16 terms; a query of only common words (such as `the`) → 400.',
  schema: { type: 'string', minLength: 1, maxLength: 256 },
};

const RANKING =
  'Ranked: a title match first, then tags, details and tasks, then comments; ties newest first. At most 1,000 ' +
  'matches are ranked (`matchLimit`); when more stories match, `moreMatches` is true and `totalItems` counts the ' +
  'ranked ones: narrow the query. Pages hold at most 100 stories (a larger `pageSize` is clamped). Each story has ' +
  '`match`: the first of its title, tags, details, tasks and comments holding a searched word, a snippet of it ' +
  'and the highlighted words. Results reflect every write that has returned. Pages by `page` only: a ranked ' +
  'order moves as stories change, so there is no `cursor` (400).';

/** This resource's operations, each declared once: the router and the OpenAPI document are built from them. */
export const searchOperations = resourceOperations('Search', 'stories', searchHandlers, [
  get(`${P}/search`, 'searchProjectStories', "Search a project's stories", {
    access: 'Read',
    with: 'story',
    where: 'story',
    ok: { page: 'StorySearchHit' },
    addition: true,
    parameters: [QUERY_PARAMETER],
    description: `Over each story's title, details, tags, tasks and comments. ${RANKING}`,
    // Everything a search reads is the board's (its stories, tags, tasks and comments) and its users' names, so
    // an answer stays exact under the board version like a story page's.
    cached: servableFromCache,
    handler: 'project',
  }),
  get(`${V1}/me/search`, 'searchMyStories', 'Search the stories of all my projects', {
    access: 'key',
    with: 'story',
    where: 'story',
    ok: { page: 'StorySearchHit' },
    addition: true,
    parameters: [QUERY_PARAMETER],
    description:
      'Every project the caller can read (a key limited to some projects searches those). In `where`, `owner:` and ' +
      `\`creator:\` match user ids only. ${RANKING}`,
    handler: 'mine',
  }),
]);
