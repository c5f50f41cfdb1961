import {
  DomainError,
  ERROR_TABLE,
  isCallersError,
  isProblemSlug,
  type ErrorKind,
} from '@flowboard/service-kit';
import type { boards } from '@flowboard/proto';
import type { Dto } from '@flowboard/representation';
import type { Fields } from '../../wire/body';
import { expectedVersionOf } from '../../wire/conditional';
import { invalidField, optionalBoolean, optionalString } from '../../wire/fields';
import { problemDto } from '../../wire/problem';
import { resource, type Reply } from '../../wire/respond';
import type { Call } from '../call';
import { post, put, resourceOperations } from '../operation';
import type { RouteDeps } from './deps';
import { P } from './paths';
import { MAX_BULK_STORIES } from './stories.schemas';
import { storyFields } from './story-fields';
import { STORY_ENRICHMENTS, storyDtosFor } from './story-views';
import { tagRefsField } from './tag-refs';

/**
 * Bulk writes of stories (README "Bulk"): `POST P/stories/bulk` makes up to 100 stories, `PUT P/stories/bulk`
 * updates up to 100 chosen by id, each with only its own fields sent, its own `ifMatch`, and optionally its whole
 * set of tags. One boards call runs them all in one transaction under the board's lock. The answer lists each
 * story's outcome in request order: done (the story, as a single call would answer it) or its problem detail.
 * Without `atomic`, a story that fails is left out and the others are done; with it, one failure does none.
 */

/** A story of the request, as the gateway checked it: what goes to boards, or the problem that kept it back. */
type Item<T> = { ok: true; request: T } | { ok: false; error: DomainError };

/** The request's `stories`: 1 to 100 objects; anything else is the whole request's 400. */
function storyItems(fields: Fields): Fields[] {
  const value = fields.stories;
  if (!Array.isArray(value)) throw invalidField("Field 'stories' is required: an array of story objects.");
  if (value.length === 0) throw invalidField("Field 'stories' must hold one story at least.");
  if (value.length > MAX_BULK_STORIES)
    throw invalidField(
      `Field 'stories' holds ${value.length} stories; at most ${MAX_BULK_STORIES} go in one request.`,
    );
  return value.map((item, i) => {
    if (typeof item !== 'object' || item === null || Array.isArray(item))
      throw invalidField(`Item ${i} of 'stories' must be a story object.`);
    return item as Fields;
  });
}

/** What checking one story threw: its own problem, or (anything unexpected) the whole request's failure. */
async function checked<T>(check: () => Promise<T>): Promise<Item<T>> {
  try {
    return { ok: true, request: await check() };
  } catch (error) {
    if (!isCallersError(error)) throw error;
    return { ok: false, error };
  }
}

/** A story's error as boards named it; a kind or problem this release does not know is an internal error. */
function storyError(outcome: boards.BulkStoryOutcome__Output): DomainError {
  const kind = outcome.error_kind as ErrorKind;
  if (!(kind in ERROR_TABLE)) return new DomainError('Internal', 'Internal error');
  return new DomainError(kind, outcome.message, {
    problem: isProblemSlug(outcome.problem) ? outcome.problem : undefined,
  });
}

/** 424 for a valid story of an atomic request that was not done because another one failed. */
const notApplied = (failedIndex: number, requestId: string): Dto => ({
  type: 'urn:flowboard:problem:not-applied',
  title: 'Not applied',
  status: 424,
  detail: `Not applied: the request is atomic and story ${failedIndex} of it failed.`,
  requestId,
});

export function storyBulkHandlers(deps: RouteDeps) {
  const { boards } = deps;

  /**
   * Sends the checked stories to boards (unless an atomic request already failed here) and answers every story's
   * outcome at its index in the request: boards' outcomes of the ones it got, the gateway's problems of the others.
   */
  async function answer<T>(
    call: Call,
    items: ReadonlyArray<Item<T>>,
    atomic: boolean,
    send: (requests: T[]) => Promise<boards.BulkStoriesResponse__Output>,
  ): Promise<Reply> {
    const enrich = call.enrichments(STORY_ENRICHMENTS);
    const sent = items.flatMap((item, index) => (item.ok ? [index] : []));
    const firstRefused = items.findIndex((item) => !item.ok);
    // Nothing goes to boards when the gateway refused every story, or one story of an atomic request.
    const outcomes =
      sent.length === 0 || (atomic && firstRefused >= 0)
        ? []
        : (await send(items.flatMap((item) => (item.ok ? [item.request] : [])))).outcomes;
    const doneStories = outcomes.flatMap((o) => (o.story ? [o.story] : []));
    const dtos = await storyDtosFor(deps, call, doneStories, enrich);
    const storyDto = new Map(doneStories.map((story, i) => [story.id, dtos[i] as Dto]));
    const failed = (index: number, problem: Dto): Dto => ({ index, status: problem.status, problem });
    const results = items.map((item, index): Dto => {
      if (!item.ok) return failed(index, problemDto(item.error, call.requestId));
      if (atomic && firstRefused >= 0) return failed(index, notApplied(firstRefused, call.requestId));
      const outcome = outcomes[sent.indexOf(index)];
      if (!outcome) throw new DomainError('Internal', 'boards answered fewer outcomes than stories');
      if (outcome.story) return { index, status: 200, story: storyDto.get(outcome.story.id) };
      // boards counts the stories it was sent; the answer counts the request's.
      if (outcome.not_applied)
        return failed(index, notApplied(sent[outcome.failed_index] ?? 0, call.requestId));
      return failed(index, problemDto(storyError(outcome), call.requestId));
    });
    const done = results.filter((r) => r.status === 200).length;
    return resource('bulkResult', { atomic, done, failed: results.length - done, results });
  }

  return {
    /** `POST P/stories/bulk`: `{stories: [StoryCreate…], atomic}`. */
    async create(call: Call): Promise<Reply> {
      const { projectId } = call.project;
      const fields = (await call.body()).object();
      const atomic = optionalBoolean(fields, 'atomic') ?? false;
      const lookups = storyFields(deps, projectId);
      const items = await Promise.all(
        storyItems(fields).map((story) => checked(() => lookups.newStory(story))),
      );
      return answer(call, items, atomic, (stories) =>
        boards.bulkCreateStories({
          project_id: projectId,
          stories: stories.map((s) => ({ ...s, project_id: 0 })),
          atomic,
        }),
      );
    },

    /** `PUT P/stories/bulk`: `{stories: [{id, ifMatch, …StoryUpdate, tags}], atomic}`. */
    async update(call: Call): Promise<Reply> {
      const { projectId } = call.project;
      const fields = (await call.body()).object();
      const atomic = optionalBoolean(fields, 'atomic') ?? false;
      const lookups = storyFields(deps, projectId);
      const items = await Promise.all(
        storyItems(fields).map((story) =>
          checked(async (): Promise<boards.BulkStoryUpdate> => {
            const id = storyId(story);
            const ifMatch = optionalString(story, 'ifMatch');
            const changes = await lookups.changes(story);
            return {
              update: {
                ...changes,
                project_id: 0,
                story_id: id,
                expected_version: expectedVersionOf(ifMatch, "Field 'ifMatch'"),
              },
              set_tags: story.tags !== undefined,
              tags: story.tags === undefined ? [] : tagRefsField(story, 'tags'),
            };
          }),
        ),
      );
      return answer(call, items, atomic, (stories) =>
        boards.bulkUpdateStories({ project_id: projectId, stories, atomic }),
      );
    },
  };
}

/** An update item's `id`: the story it changes (a positive integer). */
function storyId(story: Fields): number {
  const value = story.id;
  const id =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && /^\d{1,15}$/.test(value.trim())
        ? Number(value)
        : NaN;
  if (!Number.isSafeInteger(id) || id <= 0)
    throw invalidField("Field 'id' is required: the id of the story to update.");
  return id;
}

const BULK =
  'One transaction under the board’s lock for all of them (at most 100). The answer lists each story’s outcome in ' +
  'request order: `status` 200 with `story`, or the status and problem detail a single call would have answered. ' +
  'Without `atomic`, a story that fails is left out and the others are done; with `atomic: true`, one failure does ' +
  'none (the others answer 424 `not-applied`). Each story done sends its events, as a single call would.';

/** This resource's operations, each declared once: the router and the OpenAPI document are built from them. */
export const storyBulkOperations = resourceOperations('Stories', 'stories', storyBulkHandlers, [
  post(`${P}/stories/bulk`, 'createStoriesInBulk', 'Create up to 100 stories', {
    access: 'ReadWrite',
    with: 'story',
    body: 'StoryBulkCreate',
    ok: { one: 'BulkResult' },
    addition: true,
    description: `Each story as \`POST P/stories\` makes it, numbered in request order. ${BULK}`,
    handler: 'create',
  }),
  put(`${P}/stories/bulk`, 'updateStoriesInBulk', 'Update up to 100 stories by id', {
    access: 'ReadWrite',
    // Moves record milestones: a retried bulk update must not record them twice.
    idempotencyKey: true,
    with: 'story',
    body: 'StoryBulkUpdate',
    ok: { one: 'BulkResult' },
    addition: true,
    description:
      'Each story names its `id`, and changes only the fields it sends, as `PUT P/stories/{id}` would; `ifMatch` ' +
      'is its `If-Match` (412 when it is stale); `tags` replaces its whole set of tags (`[]` takes them all off). ' +
      `A story named twice is the request’s 400. ${BULK}`,
    handler: 'update',
  }),
]);
