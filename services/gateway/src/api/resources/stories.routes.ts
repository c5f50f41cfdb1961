import { DomainError } from '@flowboard/service-kit';
import type { boards } from '@flowboard/proto';
import type { Dto } from '@flowboard/representation';
import { pageDto, pageOnly } from '../../wire/page';
import { requiredString } from '../../wire/fields';
import { empty, page, resource, type Reply } from '../../wire/respond';
import type { Call } from '../call';
import { del, get, post, put, resourceOperations } from '../operation';
import type { RouteDeps } from './deps';
import { P, S } from './paths';
import { STORY_ENRICHMENTS, filterUsers, servableFromCache, storyDtosFor } from './story-views';
import { storyFields } from './story-fields';
import { storyWalk } from './story-walk';

export function storyHandlers(deps: RouteDeps) {
  const { membership, boards } = deps;

  const storyDtos = (
    call: Call,
    stories: boards.Story__Output[],
    enrich: ReadonlySet<string>,
    listedTags?: boards.StoryTags__Output[],
  ) => storyDtosFor(deps, call, stories, enrich, listedTags);

  async function storyReply(call: Call, story: boards.Story__Output | null, enrich: ReadonlySet<string>) {
    if (!story) throw new DomainError('Internal', 'boards returned no story');
    const [dto] = await storyDtos(call, [story], enrich);
    return resource('story', dto as Dto, story.version);
  }

  return {
    async create(call: Call): Promise<Reply> {
      const { projectId } = call.project;
      const fields = (await call.body()).object();
      requiredString(fields, 'text'); // a body without text is refused before a bad `with=` is
      const enrich = call.enrichments(STORY_ENRICHMENTS);
      const { story } = await boards.createStory({
        project_id: projectId,
        ...(await storyFields(deps, projectId).newStory(fields)),
      });
      return storyReply(call, story, enrich);
    },

    async get(call: Call): Promise<Reply> {
      const enrich = call.enrichments(STORY_ENRICHMENTS);
      const { story } = await boards.getStory({
        project_id: call.project.projectId,
        story_id: call.id('storyId'),
      });
      return storyReply(call, story, enrich);
    },

    /** `GET P/stories` (F, E, Pg): one ListStories call (with the tags when asked), one BatchGetUsers call. */
    async list(call: Call): Promise<Reply> {
      const { projectId } = call.project;
      const enrich = call.enrichments(STORY_ENRICHMENTS);
      const paging = call.paging();
      if (paging.cursor || call.query.has('updatedSince')) return storyWalk(deps, call, enrich, paging);
      const where = call.query.get('where') ?? '';
      const users = await filterUsers(membership, projectId, where);
      const withTags = enrich.has('tags');
      const { stories, total_items, story_tags } = await boards.listStories({
        project_id: projectId,
        where,
        page: paging.page,
        page_size: paging.pageSize,
        users,
        include_tags: withTags,
      });
      const dtos = await storyDtos(call, stories, enrich, withTags ? story_tags : undefined);
      return page('story', pageDto(dtos, paging, total_items));
    },

    /**
     * `PUT P/stories/{id}`: any subset of the writable fields; read-only and unknown fields are ignored
     * (docs/compat.md §1.4). `null` clears owner, deadline, details, size, priority and blockedReason.
     */
    async update(call: Call): Promise<Reply> {
      const { projectId } = call.project;
      const storyId = call.id('storyId');
      const enrich = call.enrichments(STORY_ENRICHMENTS);
      const changes = await storyFields(deps, projectId).changes((await call.body()).object());
      const { story } = await boards.updateStory({
        project_id: projectId,
        story_id: storyId,
        expected_version: call.expectedVersion(),
        ...changes,
      });
      return storyReply(call, story, enrich);
    },

    /**
     * `PUT P/stories?where=` (F, E): the single update's properties applied to every matching story, all or
     * nothing (docs/compat.md §5.3); answers the page of the affected stories after the update. `where` is
     * required.
     */
    async updateMany(call: Call): Promise<Reply> {
      const { projectId } = call.project;
      const where = call.query.get('where') ?? '';
      if (where.trim() === '') {
        throw new DomainError(
          'InvalidArgument',
          "The 'where' argument is required for a bulk update; to match every story use e.g. " +
            'where=not(color:red).',
          { problem: 'invalid-parameter' },
        );
      }
      const enrich = call.enrichments(STORY_ENRICHMENTS);
      // Its answer is a page by number: `cursor` is a 400 before the update, not after it.
      const paging = pageOnly(call.paging(), 'An update answers a page of the stories by number');
      const changes = await storyFields(deps, projectId).changes((await call.body()).object());
      const { stories, total_items } = await boards.updateStories({
        project_id: projectId,
        where,
        users: await filterUsers(membership, projectId, where),
        page: paging.page,
        page_size: paging.pageSize,
        ...changes,
      });
      return page('story', pageDto(await storyDtos(call, stories, enrich), paging, total_items));
    },

    async remove(call: Call): Promise<Reply> {
      await boards.deleteStory({
        project_id: call.project.projectId,
        story_id: call.id('storyId'),
        expected_version: call.expectedVersion(),
      });
      return empty();
    },
  };
}

/** `updatedSince` of `GET P/stories` (README "Sync: cursors and updatedSince"). */
const UPDATED_SINCE = {
  name: 'updatedSince',
  in: 'query',
  description:
    '**Flowboard addition.** Only the stories created or changed since a sync, and the ones deleted (`deleted`, ' +
    'tombstones), so that a mirror stays exact: `start` for every story (and no tombstones), then the ' +
    '`syncToken` the last page of the previous sync answered. Pages by cursor (follow `nextCursor`; `page` → 400); ' +
    'not with `where` (400). A story may be listed again though unchanged since (a change during the walk), never ' +
    'missed. A token older than the retained deletions (30 days), or from before a restore into a new database, ' +
    '→ 410 `history-gone`: sync again from `start`.',
  schema: { type: 'string', maxLength: 4096 },
};

/** This resource's operations, each declared once: the router and the OpenAPI document are built from them. */
export const storyOperations = resourceOperations('Stories', 'stories', storyHandlers, [
  get(`${P}/stories`, 'listStories', 'List stories', {
    cursor: true,
    access: 'Read',
    cached: servableFromCache,
    with: 'story',
    where: 'story',
    ok: { page: 'Story' },
    parameters: [UPDATED_SINCE],
    errors: [410],
    description:
      'By phase index, then board position; by cursor (`cursor=`, and always with `updatedSince`), in id ' +
      '(creation) order.',
    handler: 'list',
  }),
  post(`${P}/stories`, 'createStory', 'Create a story', {
    access: 'ReadWrite',
    with: 'story',
    body: 'StoryCreate',
    ok: { one: 'Story' },
    handler: 'create',
  }),
  put(`${P}/stories`, 'updateStories', 'Update the stories matching a filter', {
    access: 'ReadWrite',
    with: 'story',
    where: 'story',
    body: 'StoryUpdate',
    ok: { page: 'Story' },
    description:
      '`where` is required (match all with a tautology such as `not(color:red)`). All or nothing: if ' +
      'any story fails, nothing changes (400). Answers a page of the affected stories.',
    handler: 'updateMany',
  }),
  get(S, 'getStory', 'Get a story', {
    access: 'Read',
    conditional: true,
    cached: servableFromCache,
    with: 'story',
    ok: { one: 'Story' },
    handler: 'get',
  }),
  put(S, 'updateStory', 'Update a story', {
    access: 'ReadWrite',
    conditional: true,
    // A move records a milestone: a retried move must not record two.
    idempotencyKey: true,
    with: 'story',
    body: 'StoryUpdate',
    ok: { one: 'Story' },
    handler: 'update',
  }),
  del(S, 'deleteStory', 'Delete a story', {
    access: 'ReadWrite',
    conditional: true,
    ok: 'empty',
    description: 'Deletes its tasks, comments, attachments and tag links too.',
    handler: 'remove',
  }),
]);
