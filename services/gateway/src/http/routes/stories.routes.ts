import { DomainError } from '@flowboard/service-kit';
import type { boards, membership } from '@flowboard/proto';
import { resolveUsers } from '../../clients/user-resolver';
import type { Dto } from '../../representation/dto';
import { pageDto } from '../../representation/page';
import { storyDto, storyUserIds } from '../../representation/story.dto';
import type { Fields } from '../body';
import type { Call } from '../call';
import type { EnrichmentVocabulary } from '../enrichments';
import { invalidField, optionalReference, optionalString, requiredString, type Reference } from '../fields';
import { empty, page, resource, type Reply } from '../respond';
import type { RouteDeps } from './deps';

// TODO(story-enrichments): tags, tasks, comments, milestones, steps, metrics arrive with their RPCs.
export const STORY_ENRICHMENTS: EnrichmentVocabulary = { names: ['details'] };

/** A user reference (api-compat §1.4, §5.3): an id, a username, `{id}` or `{userName}`/`{username}`. */
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

/** Filters naming users (owner:/creator:) need the members, so names can match (api-compat §4.2). */
const NAMES_USERS = /\b(owner|creator)\s*:/i;

export function storyHandlers(deps: RouteDeps) {
  const { membership, boards } = deps;

  /** Stories as API resources: creator and owner resolved in ONE batch, the project name from the access check. */
  async function storyDtos(
    call: Call,
    stories: boards.Story__Output[],
    enrich: ReadonlySet<string>,
  ): Promise<Dto[]> {
    const users = await resolveUsers(membership, storyUserIds(stories));
    const { projectId, projectName } = call.project;
    return stories.map((story) =>
      storyDto(story, {
        project: { id: projectId, name: projectName },
        users,
        details: enrich.has('details'),
      }),
    );
  }

  async function storyReply(call: Call, story: boards.Story__Output | null, enrich: ReadonlySet<string>) {
    if (!story) throw new DomainError('Internal', 'boards returned no story');
    const [dto] = await storyDtos(call, [story], enrich);
    return resource('story', dto as Dto);
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

  /** A phase by name: the first match by index, ignoring case (api-compat §5.3). */
  async function phaseIdFor(projectId: number, ref: Reference | null | undefined): Promise<number> {
    if (!ref) return 0; // Backlog
    if ('id' in ref) return ref.id;
    const { phases } = await boards.listPhases(projectId);
    const wanted = ref.name.toLowerCase();
    const phase = phases.find((p) => p.name.toLowerCase() === wanted);
    if (!phase) {
      throw new DomainError('InvalidArgument', `Unknown phase '${ref.name}'.`, {
        problem: 'invalid-reference',
      });
    }
    return phase.id;
  }

  return {
    // TODO(story-tags-tasks): `tags` and `tasks` on create arrive with their RPCs.
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
        size: optionalString(fields, 'size') ?? '',
        priority: optionalString(fields, 'priority') ?? '',
        color: optionalString(fields, 'color') ?? '',
        phase_id: await phaseIdFor(projectId, optionalReference(fields, 'phase', { byName: true })),
        owner_id: owner ? await ownerIdFor(projectId, owner) : 0,
        deadline: optionalString(fields, 'deadline') ?? '',
      });
      return storyReply(call, story, enrich);
    },

    async get(call: Call): Promise<Reply> {
      const enrich = call.enrichments(STORY_ENRICHMENTS);
      const { story } = await boards.getStory(call.project.projectId, call.id('storyId'));
      return storyReply(call, story, enrich);
    },

    /** `GET P/stories` (F, E, Pg): one ListStories call, one BatchGetUsers call. */
    async list(call: Call): Promise<Reply> {
      const { projectId } = call.project;
      const enrich = call.enrichments(STORY_ENRICHMENTS);
      const paging = call.paging();
      const where = call.query.get('where') ?? '';
      const users = NAMES_USERS.test(where)
        ? (await members(projectId)).map((u) => ({ id: u.id, user_name: u.user_name, name: u.name }))
        : [];
      const { stories, total_items } = await boards.listStories({
        project_id: projectId,
        where,
        page: paging.page,
        page_size: paging.pageSize,
        users,
      });
      return page('story', pageDto(await storyDtos(call, stories, enrich), paging, total_items));
    },

    /**
     * `PUT P/stories/{id}`: any subset of the writable fields; read-only and unknown fields are ignored
     * (api-compat §1.4). `null` clears owner, deadline, details, size, priority and blockedReason.
     */
    async update(call: Call): Promise<Reply> {
      const { projectId } = call.project;
      const storyId = call.id('storyId');
      const enrich = call.enrichments(STORY_ENRICHMENTS);
      const fields = (await call.body()).object();
      const request: boards.UpdateStoryRequest = {
        project_id: projectId,
        story_id: storyId,
        update_mask: [],
      };
      const mask = request.update_mask as string[];
      const set = <K extends keyof boards.UpdateStoryRequest>(
        name: string,
        key: K,
        value: boards.UpdateStoryRequest[K],
      ) => {
        mask.push(name);
        request[key] = value;
      };
      const text = optionalString(fields, 'text');
      if (text !== undefined) set('text', 'text', text);
      for (const [name, key] of [
        ['details', 'details'],
        ['size', 'size'],
        ['priority', 'priority'],
        ['deadline', 'deadline'],
        ['blockedReason', 'blocked_reason'],
      ] as const) {
        if (fields[name] !== undefined) set(key, key, optionalString(fields, name) ?? '');
      }
      const color = optionalString(fields, 'color');
      if (color !== undefined) set('color', 'color', color);
      const status = optionalString(fields, 'status');
      if (status !== undefined) set('status', 'status', status);
      const phase = optionalReference(fields, 'phase', { byName: true });
      if (phase) set('phase', 'phase_id', await phaseIdFor(projectId, phase));
      const owner = ownerReference(fields);
      if (owner !== undefined) set('owner', 'owner_id', await ownerIdFor(projectId, owner));
      const { story } = await boards.updateStory(request);
      return storyReply(call, story, enrich);
    },

    async remove(call: Call): Promise<Reply> {
      await boards.deleteStory(call.project.projectId, call.id('storyId'));
      return empty();
    },
  };
}
