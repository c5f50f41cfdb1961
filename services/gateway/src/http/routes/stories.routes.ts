import { DomainError } from '@flowboard/service-kit';
import type { boards, membership } from '@flowboard/proto';
import {
  type Dto,
  storyDto,
  storyUserIds,
  taskDto,
  taskUserIds,
  commentDto,
  commentUserIds,
  tagDto,
} from '@flowboard/representation';
import { pageDto } from '../../representation/page';
import { tagRefsField } from './tag-refs';
import { storyHistoryBatch, storyHistoryFields } from './story-history';
import type { Fields } from '../body';
import type { Call } from '../call';
import type { Query } from '../query';
import type { EnrichmentVocabulary } from '../enrichments';
import {
  invalidField,
  optionalNumericText,
  optionalReference,
  optionalString,
  requiredString,
  type Reference,
} from '../fields';
import { empty, page, resource, type Reply } from '../respond';
import type { RouteDeps } from './deps';
import { del, get, post, put, resourceOperations } from '../operation';
import { P, S } from './paths';

export const STORY_ENRICHMENTS: EnrichmentVocabulary = {
  names: ['details', 'tags', 'tasks', 'comments', 'milestones', 'steps', 'metrics'],
};

/** A user reference (docs/compat.md §1.4, §5.3): an id, a username, `{id}` or `{userName}`/`{username}`. */
export type UserReference = { id: number } | { userName: string };

/** `owner` from a body: undefined when absent; null (unassign) for null or "" (`<owner />`). */
export function ownerReference(fields: Fields): UserReference | null | undefined {
  const value = fields.owner;
  if (value === undefined) return undefined;
  const ref = toUserReference(value);
  if (ref === undefined) {
    throw invalidField("Field 'owner' must be a user id, a username or an object with 'id' or 'userName'.");
  }
  return ref;
}

function toUserReference(value: unknown): UserReference | null | undefined {
  if (value === null) return null;
  if (typeof value === 'number') return Number.isSafeInteger(value) && value > 0 ? { id: value } : undefined;
  if (typeof value === 'string') {
    const text = value.trim();
    if (text === '') return null;
    if (/^\d{1,15}$/.test(text)) return toUserReference(Number(text));
    return { userName: text };
  }
  if (typeof value === 'object' && !Array.isArray(value)) {
    const obj = value as Fields;
    for (const key of ['id', 'userName', 'username']) {
      const v = obj[key];
      if (v !== undefined && v !== null && v !== '') {
        const ref = toUserReference(v);
        return ref ?? undefined;
      }
    }
  }
  return undefined;
}

/** Filters naming users (owner:/creator:) need the members, so names can match (docs/compat.md §4.2). */
const NAMES_USERS = /\b(owner|creator)\s*:/i;

/** Enrichments whose open milestones and steps run to now: a cached answer would be wrong a second later. */
const RUNS_TO_NOW = /\b(milestones|steps|metrics|everything)\b/i;

/**
 * Whether a board read's answer may come from the response cache: it must depend on the board and the users'
 * names only. History enrichments depend on the clock, and owner:/creator: filters on the project's members.
 */
export function servableFromCache(query: Query): boolean {
  return (
    !query.getAll('with').some((value) => RUNS_TO_NOW.test(value)) &&
    !query.getAll('where').some((value) => NAMES_USERS.test(value))
  );
}

/**
 * Stories as API resources: creator, owner, task finishers and comment authors resolved in ONE batch, the
 * project name from the access check. `with=tags`/`tasks`/`comments` add one batched boards call each; the arrays
 * are always present when requested (even empty).
 */
export async function storyDtosFor(
  deps: Pick<RouteDeps, 'users' | 'boards'>,
  call: { project: Pick<Call['project'], 'projectId' | 'projectName'> },
  stories: boards.Story__Output[],
  enrich: ReadonlySet<string>,
  /** The stories' tags, when the call that listed them brought them along (ListStories with include_tags). */
  listedTags?: boards.StoryTags__Output[],
): Promise<Dto[]> {
  const { projectId, projectName } = call.project;
  const storyIds = stories.map((s) => s.id);
  const wantTasks = enrich.has('tasks') && stories.length > 0;
  const wantComments = enrich.has('comments') && stories.length > 0;
  // with=tags: one BatchGetStoryTags per response, in parallel with the batches below (unless already listed).
  const tagBatch = listedTags
    ? Promise.resolve({ stories: listedTags })
    : enrich.has('tags') && stories.length > 0
      ? deps.boards.batchGetStoryTags({ project_id: projectId, story_ids: storyIds })
      : undefined;
  tagBatch?.catch(() => undefined); // awaited below; this only keeps an early failure from going unhandled
  const [taskBatch, commentBatch, historyBatch] = await Promise.all([
    wantTasks ? deps.boards.batchGetStoryTasks({ project_id: projectId, story_ids: storyIds }) : undefined,
    wantComments
      ? deps.boards.batchGetStoryComments({ project_id: projectId, story_ids: storyIds })
      : undefined,
    storyHistoryBatch(deps.boards, projectId, storyIds, enrich),
  ]);
  const history = new Map((historyBatch?.stories ?? []).map((h) => [h.story_id, h]));
  const tasks = new Map((taskBatch?.stories ?? []).map((s) => [s.story_id, s.tasks]));
  const tags = new Map(((await tagBatch)?.stories ?? []).map((s) => [s.story_id, s.tags]));
  const comments = new Map((commentBatch?.stories ?? []).map((s) => [s.story_id, s.comments]));
  const users = await deps.users.resolve([
    ...storyUserIds(stories),
    ...[...tasks.values()].flatMap(taskUserIds),
    ...[...comments.values()].flatMap(commentUserIds),
  ]);
  const view = { project: { id: projectId, name: projectName }, users, details: enrich.has('details') };
  // One object per story, enrichments added in order (JSON keeps it): pages build 100 to 1,000 of these.
  return stories.map((story) => {
    const dto = storyDto(story, view);
    if (enrich.has('tags')) dto.tags = (tags.get(story.id) ?? []).map(tagDto);
    if (enrich.has('tasks')) dto.tasks = (tasks.get(story.id) ?? []).map((t) => taskDto(t, users));
    if (enrich.has('comments'))
      dto.comments = (comments.get(story.id) ?? []).map((c) => commentDto(c, users));
    // historyBatch is there exactly when milestones, steps or metrics were asked for.
    return historyBatch ? Object.assign(dto, storyHistoryFields(history.get(story.id), enrich)) : dto;
  });
}

/** The members as filter aliases, when the filter names users (owner:/creator:); else none are needed. */
export async function filterUsers(
  membership: RouteDeps['membership'],
  projectId: number,
  where: string,
): Promise<boards.UserAlias[]> {
  if (!NAMES_USERS.test(where)) return [];
  const { members } = await membership.getProject({ project_id: projectId, include_members: true });
  return members.map((u) => ({ id: u.id, user_name: u.user_name, name: u.name }));
}

/** The writable fields of a story update body (docs/compat.md §5.3) as an update mask and values. */
export type StoryChanges = Omit<boards.UpdateStoryRequest, 'project_id' | 'story_id'> & {
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
  async function ownerIdFor(projectId: number, ref: UserReference | null): Promise<number> {
    if (ref === null) return 0;
    const all = await members(projectId);
    const user =
      'id' in ref
        ? all.find((u) => u.id === ref.id)
        : all.find((u) => u.user_name.toLowerCase() === ref.userName.toLowerCase());
    if (!user) {
      const shown = 'id' in ref ? String(ref.id) : ref.userName;
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

  /**
   * The writable fields of an update body; read-only and unknown fields are ignored (docs/compat.md §1.4).
   * `null` clears owner, deadline, details, size, priority and blockedReason.
   */
  /** docs/compat.md §1.5. */
  const BLOCKED_REASON_LIMIT = 1000;

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
export const storyOperations = resourceOperations('Stories', storyHandlers, [
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
