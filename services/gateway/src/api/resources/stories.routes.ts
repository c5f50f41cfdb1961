import { DomainError } from '@flowboard/service-kit';
import type { boards, membership } from '@flowboard/proto';
import type { Dto } from '@flowboard/representation';
import { pageDto } from '../../wire/page';
import type { Fields } from '../../wire/body';
import {
  invalidField,
  optionalNumericText,
  optionalReference,
  optionalString,
  requiredString,
  type Reference,
} from '../../wire/fields';
import { empty, page, resource, type Reply } from '../../wire/respond';
import type { Call } from '../call';
import { del, get, post, put, resourceOperations } from '../operation';
import type { RouteDeps } from './deps';
import { P, S } from './paths';
import { STORY_ENRICHMENTS, filterUsers, servableFromCache, storyDtosFor } from './story-views';
import { tagRefsField } from './tag-refs';
import { userRef, type UserRef } from './user-refs';

/** `owner` from a story body: undefined when absent; null (unassign) for null or "" (`<owner />`). */
function ownerReference(fields: Fields): UserRef | null | undefined {
  const value = fields.owner;
  if (value === undefined) return undefined;
  if (value === null || (typeof value === 'string' && value.trim() === '')) return null;
  return userRef(value, "Field 'owner'");
}

/**
 * A story update on its way to boards: the update mask and the values of the writable fields, exactly as
 * UpdateStory and UpdateStories (the bulk update) both take them, so one parse serves both.
 */
type StoryChanges = Omit<boards.UpdateStoryRequest, 'project_id' | 'story_id' | 'expected_version'> & {
  update_mask: string[];
};

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

  const members = async (projectId: number): Promise<membership.User__Output[]> =>
    (await membership.getProject({ project_id: projectId, include_members: true })).members;

  /** The owner's user id (0 = unassign); a user who is not a project member → 400 invalid-reference. */
  async function ownerIdFor(projectId: number, ref: UserRef | null): Promise<number> {
    if (ref === null) return 0;
    const all = await members(projectId);
    const user = ref.id
      ? all.find((u) => u.id === ref.id)
      : all.find((u) => u.user_name.toLowerCase() === ref.user_name.toLowerCase());
    if (!user) {
      const shown = ref.id ? String(ref.id) : ref.user_name;
      throw new DomainError('InvalidArgument', `Invalid owner '${shown}': not a member of this project.`, {
        problem: 'invalid-reference',
      });
    }
    return user.id;
  }

  /** A phase by name: the first match by index, ignoring case (docs/compat.md §5.3). */
  async function phaseIdFor(projectId: number, ref: Reference | null | undefined): Promise<number> {
    if (!ref) return 0; // Backlog
    if ('id' in ref) return ref.id;
    const { phases } = await boards.listPhases({ project_id: projectId });
    const wanted = ref.name.toLowerCase();
    const phase = phases.find((p) => p.name.toLowerCase() === wanted);
    if (!phase) {
      throw new DomainError('InvalidArgument', `Unknown phase '${ref.name}'.`, {
        problem: 'invalid-reference',
      });
    }
    return phase.id;
  }

  /** docs/compat.md §1.5. */
  const BLOCKED_REASON_LIMIT = 1000;

  /**
   * The writable fields of an update body; read-only and unknown fields are ignored (docs/compat.md §1.4).
   * `null` clears owner, deadline, details, size, priority and blockedReason.
   */
  async function storyChanges(projectId: number, fields: Fields): Promise<StoryChanges> {
    const changes: StoryChanges = { update_mask: [] };
    const set = <K extends keyof StoryChanges>(name: string, key: K, value: StoryChanges[K]) => {
      changes.update_mask.push(name);
      changes[key] = value;
    };
    const text = optionalString(fields, 'text');
    if (text !== undefined) set('text', 'text', text);
    for (const [name, key] of [
      ['details', 'details'],
      ['deadline', 'deadline'],
      ['blockedReason', 'blocked_reason'],
    ] as const) {
      if (fields[name] !== undefined) set(key, key, optionalString(fields, name) ?? '');
    }
    for (const name of ['size', 'priority'] as const) {
      if (fields[name] !== undefined) set(name, name, optionalNumericText(fields, name) ?? '');
    }
    // The length cap holds whether or not the reason is used (it is ignored unless the story is blocked), so a body
    // is valid or not by itself, not by the story's state.
    if (changes.blocked_reason !== undefined && [...changes.blocked_reason].length > BLOCKED_REASON_LIMIT)
      throw invalidField(`Field 'blockedReason' must be at most ${BLOCKED_REASON_LIMIT} characters.`);
    const color = optionalString(fields, 'color');
    if (color !== undefined) set('color', 'color', color);
    const status = optionalString(fields, 'status');
    if (status !== undefined) set('status', 'status', status);
    const phase = optionalReference(fields, 'phase', { byName: true });
    if (phase) set('phase', 'phase_id', await phaseIdFor(projectId, phase));
    const owner = ownerReference(fields);
    if (owner !== undefined) set('owner', 'owner_id', await ownerIdFor(projectId, owner));
    return changes;
  }

  return {
    async create(call: Call): Promise<Reply> {
      const { projectId } = call.project;
      const fields = (await call.body()).object();
      const text = requiredString(fields, 'text');
      const enrich = call.enrichments(STORY_ENRICHMENTS);
      const owner = ownerReference(fields);
      const { story } = await boards.createStory({
        project_id: projectId,
        text,
        details: optionalString(fields, 'details') ?? '',
        size: optionalNumericText(fields, 'size') ?? '',
        priority: optionalNumericText(fields, 'priority') ?? '',
        color: optionalString(fields, 'color') ?? '',
        phase_id: await phaseIdFor(projectId, optionalReference(fields, 'phase', { byName: true })),
        owner_id: owner ? await ownerIdFor(projectId, owner) : 0,
        deadline: optionalString(fields, 'deadline') ?? '',
        tasks: newTasks(fields),
        tags: tagRefsField(fields, 'tags'),
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
      const changes = await storyChanges(projectId, (await call.body()).object());
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
      const paging = call.paging();
      const changes = await storyChanges(projectId, (await call.body()).object());
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

/** `tasks` on a story create (docs/compat.md §5.3): `[{text, status?}]`; null or absent means none. */
function newTasks(fields: Fields): boards.NewTask[] {
  const value = fields.tasks;
  if (value === undefined || value === null || value === '') return [];
  if (!Array.isArray(value)) throw invalidField("Field 'tasks' must be an array of task objects.");
  return value.map((item) => {
    if (typeof item === 'string') return { text: item, status: '' };
    if (typeof item !== 'object' || item === null || Array.isArray(item))
      throw invalidField("Each item of 'tasks' must be an object with 'text'.");
    const task = item as Fields;
    return { text: optionalString(task, 'text') ?? '', status: optionalString(task, 'status') ?? '' };
  });
}

/** This resource's operations, each declared once: the router and the OpenAPI document are built from them. */
export const storyOperations = resourceOperations('Stories', 'stories', storyHandlers, [
  get(`${P}/stories`, 'listStories', 'List stories', {
    access: 'Read',
    cached: servableFromCache,
    with: 'story',
    where: 'story',
    ok: { page: 'Story' },
    description: 'By phase index, then board position.',
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
