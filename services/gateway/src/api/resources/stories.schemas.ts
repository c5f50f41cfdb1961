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

/** A search's page is cut to this (each story on it gets a snippet); search.routes.ts clamps `pageSize` to it. */
export const MAX_SEARCH_PAGE_SIZE = 100;

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
    StoryPage: pageSchema('Story', 'stories'),
    StorySearchHitPage: {
      ...searchPage,
      required: [...searchPage.required, 'matchLimit', 'moreMatches'],
      properties: {
        ...searchPage.properties,
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
    StoryUpdate: body('story', {
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
    }),
  },
};
