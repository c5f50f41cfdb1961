import {
  arrayOf,
  body,
  int,
  nonBlank,
  nullable,
  pageSchema,
  ref,
  resource,
  str,
  text,
  timestamp,
  xmlArray,
  userRefProperties,
  type ResourceSchemas,
  type Schema,
} from '../schema';

/** Stories (stories.routes.ts; on `/me` too, me-stories.routes.ts), with their history: milestones and steps. */

const named = (description: string): Schema => ({ ...ref('NamedRef'), description });
const stringish = { type: ['string', 'number'], description: 'Numbers are converted to strings.' };
/**
 * Dates as the services read them: a date, or a timestamp (RFC 3339 here; a space for `T`, no seconds and no zone
 * are accepted too). Impossible dates (Feb 30) are refused.
 */
const deadline: Schema = {
  anyOf: [
    { type: 'string', format: 'date' },
    { type: 'string', format: 'date-time' },
    { const: '', description: 'No deadline.' },
  ],
  description:
    'A date (`2011-02-24`) or a timestamp (`2011-02-24T18:00:00`; a zone is converted to UTC); flowboard addition.',
};

/** The most stories one bulk request takes (stories-bulk.routes.ts): they share one transaction under the board lock. */
export const MAX_BULK_STORIES = 100;

/** A search's page is cut to this (each story on it gets a snippet); search.routes.ts clamps `pageSize` to it. */
export const MAX_SEARCH_PAGE_SIZE = 100;

const basePage = pageSchema('Story', 'stories') as Schema & { properties: Record<string, Schema> };
/** `GET P/stories` also answers a sync (`updatedSince`, README "Sync: cursors and updatedSince"). */
const storyPage: Schema = {
  ...basePage,
  properties: {
    ...basePage.properties,
    deleted: arrayOf(
      ref('DeletedStory'),
      'With `updatedSince`: the stories of this page deleted since the token (ids interleave with `items`). ' +
        'Flowboard addition.',
    ),
    syncToken: str(
      'With `updatedSince`, on the last page: the token of the next sync (`updatedSince=<syncToken>`). ' +
        'Flowboard addition.',
    ),
  },
};
const searchPage = pageSchema('StorySearchHit', 'stories', MAX_SEARCH_PAGE_SIZE) as Schema & {
  required: string[];
  properties: Record<string, Schema>;
};

/** A story's members, which a search hit has too. */
const STORY_REQUIRED = ['id', 'text', 'size', 'color', 'priority', 'status', 'project', 'phase', 'creator'];
const STORY_PROPERTIES: Record<string, Schema> = {
  id: int('Unique within the project.'),
  text: str(),
  details: str('Markdown; with `with=details`.'),
  size: str('`""` when unset.'),
  color: ref('Color'),
  priority: str('`""` when unset.'),
  deadline: { ...timestamp, description: 'Only when set.' },
  status: { type: 'string', enum: ['planned', 'started', 'ready', 'blocked', 'finished'] },
  blockedReason: str('Only while `blocked`.'),
  project: named('The project.'),
  phase: named('The phase the story sits in.'),
  creator: ref('UserRef'),
  owner: { ...ref('UserRef'), description: 'The assigned user; omitted when nobody is.' },
  tags: arrayOf(ref('Tag'), 'With `with=tags`.'),
  tasks: arrayOf(ref('Task'), 'With `with=tasks`.'),
  comments: arrayOf(ref('Comment'), 'With `with=comments`.'),
  milestones: arrayOf(ref('Milestone'), 'With `with=milestones`: one per stay in a phase, oldest first.'),
  steps: arrayOf(ref('Step'), 'With `with=steps`: one per status period, oldest first.'),
  metrics: { ...ref('StoryMetrics'), description: 'With `with=metrics`.' },
};

/** A bulk request's body (stories-bulk.routes.ts): 1 to 100 stories of `item`, and `atomic`. */
const bulkBody = (item: string): Schema =>
  body(
    'bulk',
    {
      stories: { ...xmlArray(ref(item), 'stories', 'story'), minItems: 1, maxItems: MAX_BULK_STORIES },
      atomic: { type: 'boolean', description: 'One failure does none (default false).' },
    },
    ['stories'],
  );

/** What a story update may change (`PUT P/stories/{id}`, and each story of a bulk update). */
const STORY_UPDATE_PROPERTIES: Record<string, Schema> = {
  text: nonBlank(2000),
  details: str(),
  size: stringish,
  priority: stringish,
  color: ref('Color'),
  status: {
    type: 'string',
    enum: ['started', 'ready', 'blocked'],
    description: 'Only in a middle phase.',
  },
  blockedReason: nullable(text(1000)),
  phase: ref('PhaseReference'),
  owner: nullable(ref('UserReference')),
  deadline: nullable(deadline),
};

export const storySchemas: ResourceSchemas = {
  responses: {
    Story: resource('story', STORY_REQUIRED, STORY_PROPERTIES),
    // Search (search.routes.ts): a story as every list shows it, with where it matched.
    StorySearchHit: resource('story', [...STORY_REQUIRED, 'match'], {
      ...STORY_PROPERTIES,
      match: ref('SearchMatch'),
    }),
    SearchMatch: resource(
      'match',
      ['field', 'snippet', 'highlights', 'score'],
      {
        field: { type: 'string', enum: ['text', 'tag', 'details', 'task', 'comment'] },
        id: int('The tag, task or comment that matched; absent for `text` and `details`.'),
        snippet: str('A short passage of that field around the match, as plain text.'),
        highlights: arrayOf(ref('SearchHighlight'), 'The searched words in the snippet.'),
        score: { type: 'number', description: 'The rank, higher first; comparable within one answer only.' },
      },
      { description: 'Flowboard addition: where the story matched.' },
    ),
    SearchHighlight: resource('highlight', ['start', 'length'], {
      start: int("In Unicode code points from the snippet's start (not UTF-16 code units)."),
      length: int('In code points.'),
    }),
    BulkResult: resource(
      'bulkResult',
      ['atomic', 'done', 'failed', 'results'],
      {
        atomic: { type: 'boolean', description: 'As asked: whether one failure was to do none.' },
        done: int('Stories done.'),
        failed: int('Stories not done (their own failure, or `not-applied` in an atomic request).'),
        results: arrayOf(ref('BulkStoryResult'), 'One per story of the request, in its order.'),
      },
      { description: 'Flowboard addition: the outcome of a bulk request, story by story (README "Bulk").' },
    ),
    BulkStoryResult: resource('result', ['index', 'status'], {
      index: int("The story's place in the request, from 0."),
      status: int(
        '200 when done; else the status a single call would have answered, or 424 (`not-applied`).',
      ),
      story: {
        ...ref('Story'),
        description: 'When done: the story as a single call answers it (`with=` too).',
      },
      problem: { ...ref('Problem'), description: 'When not done: why.' },
    }),
    Milestone: resource('milestone', ['id', 'phase', 'startTime', 'duration'], {
      id: int(),
      phase: ref('NamedRef'),
      startTime: timestamp,
      endTime: { ...timestamp, description: 'Absent on the open milestone.' },
      duration: int('Seconds; the open one runs to now.'),
      by: ref('ChangeAuthor'),
    }),
    Step: resource('step', ['id', 'type', 'startTime', 'duration'], {
      id: int(),
      type: { type: 'string', enum: ['backlog', 'working', 'ready', 'blocked', 'archive'] },
      startTime: timestamp,
      endTime: { ...timestamp, description: 'Absent on the open step.' },
      duration: int('Seconds.'),
      by: ref('ChangeAuthor'),
    }),
    ChangeAuthor: resource(
      'by',
      ['id', 'name', 'userName', 'email'],
      {
        ...userRefProperties,
        apiKey: {
          type: 'object',
          required: ['id', 'name'],
          properties: {
            id: int(),
            name: str('As it was when the change was made; `""` for a key without one.'),
          },
          additionalProperties: false,
          description: 'The API key the change was made with (README "Scoped API keys").',
        },
      },
      {
        description:
          'Flowboard addition: who made the change that began this milestone or step. Left out for history ' +
          'recorded before authors were.',
      },
    ),
  },
  pages: {
    StoryPage: storyPage,
    DeletedStory: resource('deletedStory', ['id', 'deletedTime'], {
      id: int(),
      deletedTime: timestamp,
    }),
    StorySearchHitPage: {
      ...searchPage,
      required: [...searchPage.required, 'matchLimit', 'moreMatches'],
      properties: {
        // Ranked: a search pages by `page` alone (a cursor needs an order that does not move).
        ...Object.fromEntries(
          Object.entries(searchPage.properties).filter(([name]) => name !== 'nextCursor'),
        ),
        matchLimit: int('How many matches a search ranks at most (1,000).'),
        moreMatches: {
          type: 'boolean',
          description:
            'More stories matched than were ranked: `totalItems` counts the ranked ones. Narrow the query.',
        },
      },
    },
  },
  requests: {
    StoryCreate: body(
      'story',
      {
        text: nonBlank(2000),
        details: str('Markdown.'),
        size: stringish,
        priority: stringish,
        color: { ...ref('Color'), description: 'Default `grey`; any case.' },
        phase: { ...ref('PhaseReference'), description: 'Default: Backlog.' },
        owner: ref('UserReference'),
        deadline,
        tags: xmlArray(ref('TagReference'), 'tags', 'tag', 'An unknown name creates the tag.'),
        tasks: xmlArray(
          { anyOf: [ref('TaskCreate'), nonBlank(2000, "A task's text alone.")] },
          'tasks',
          'task',
        ),
      },
      ['text'],
    ),
    StoryUpdate: body('story', STORY_UPDATE_PROPERTIES),
    StoryBulkCreate: bulkBody('StoryCreate'),
    StoryBulkUpdate: bulkBody('StoryBulkUpdateItem'),
    StoryBulkUpdateItem: body(
      'story',
      {
        id: { type: ['integer', 'string'], description: 'The story to update.' },
        ifMatch: str(
          "Its `If-Match`: the story's ETag as a GET answered it; a stale one → 412 for this story.",
        ),
        ...STORY_UPDATE_PROPERTIES,
        tags: xmlArray(
          ref('TagReference'),
          'tags',
          'tag',
          "Replaces the story's tags; `[]` takes them all off.",
        ),
      },
      ['id'],
    ),
  },
};
