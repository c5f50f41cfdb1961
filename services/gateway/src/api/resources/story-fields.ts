import { DomainError } from '@flowboard/service-kit';
import type { boards, membership } from '@flowboard/proto';
import type { Fields } from '../../wire/body';
import {
  invalidField,
  optionalNumericText,
  optionalReference,
  optionalString,
  requiredString,
  type Reference,
} from '../../wire/fields';
import type { RouteDeps } from './deps';
import { tagRefsField } from './tag-refs';
import { userRef, type UserRef } from './user-refs';

/**
 * A story body's writable fields as boards takes them, for one request on one project: a create, an update, and the
 * bulk forms of both (stories.routes.ts, stories-bulk.routes.ts). Owners and phases named by the body are looked up
 * at most once per request, however many stories it holds (the members with one membership call, the phases with
 * one boards call).
 */

/**
 * A story update on its way to boards: the update mask and the values of the writable fields, exactly as
 * UpdateStory, UpdateStories (the filtered update) and BulkUpdateStories take them, so one parse serves all three.
 */
export type StoryChanges = Omit<boards.UpdateStoryRequest, 'project_id' | 'story_id' | 'expected_version'> & {
  update_mask: string[];
};

/** A new story as CreateStory and BulkCreateStories take it. */
export type NewStory = Omit<boards.CreateStoryRequest, 'project_id'>;

/** docs/compat.md §1.5. */
const BLOCKED_REASON_LIMIT = 1000;

export interface StoryFields {
  /** The writable fields of an update body; read-only and unknown fields are ignored (docs/compat.md §1.4). */
  changes(fields: Fields): Promise<StoryChanges>;
  /** A create body: `text` required, the rest optional. */
  newStory(fields: Fields): Promise<NewStory>;
}

export function storyFields(
  { membership, boards }: Pick<RouteDeps, 'membership' | 'boards'>,
  projectId: number,
): StoryFields {
  let members: Promise<membership.User__Output[]> | undefined;
  let phases: Promise<boards.Phase__Output[]> | undefined;
  const memberList = () =>
    (members ??= membership
      .getProject({ project_id: projectId, include_members: true })
      .then((p) => p.members));
  const phaseList = () => (phases ??= boards.listPhases({ project_id: projectId }).then((r) => r.phases));

  /** The owner's user id (0 = unassign); a user who is not a project member → 400 invalid-reference. */
  async function ownerIdFor(ref: UserRef | null): Promise<number> {
    if (ref === null) return 0;
    const all = await memberList();
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
  async function phaseIdFor(ref: Reference | null | undefined): Promise<number> {
    if (!ref) return 0; // Backlog
    if ('id' in ref) return ref.id;
    const wanted = ref.name.toLowerCase();
    const phase = (await phaseList()).find((p) => p.name.toLowerCase() === wanted);
    if (!phase) {
      throw new DomainError('InvalidArgument', `Unknown phase '${ref.name}'.`, {
        problem: 'invalid-reference',
      });
    }
    return phase.id;
  }

  return {
    async changes(fields) {
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
      // The length cap holds whether or not the reason is used (it is ignored unless the story is blocked), so a
      // body is valid or not by itself, not by the story's state.
      if (changes.blocked_reason !== undefined && [...changes.blocked_reason].length > BLOCKED_REASON_LIMIT)
        throw invalidField(`Field 'blockedReason' must be at most ${BLOCKED_REASON_LIMIT} characters.`);
      const color = optionalString(fields, 'color');
      if (color !== undefined) set('color', 'color', color);
      const status = optionalString(fields, 'status');
      if (status !== undefined) set('status', 'status', status);
      const phase = optionalReference(fields, 'phase', { byName: true });
      if (phase) set('phase', 'phase_id', await phaseIdFor(phase));
      const owner = ownerReference(fields);
      if (owner !== undefined) set('owner', 'owner_id', await ownerIdFor(owner));
      return changes;
    },

    async newStory(fields) {
      const text = requiredString(fields, 'text');
      const owner = ownerReference(fields);
      return {
        text,
        details: optionalString(fields, 'details') ?? '',
        size: optionalNumericText(fields, 'size') ?? '',
        priority: optionalNumericText(fields, 'priority') ?? '',
        color: optionalString(fields, 'color') ?? '',
        phase_id: await phaseIdFor(optionalReference(fields, 'phase', { byName: true })),
        owner_id: owner ? await ownerIdFor(owner) : 0,
        deadline: optionalString(fields, 'deadline') ?? '',
        tasks: newTasks(fields),
        tags: tagRefsField(fields, 'tags'),
      };
    },
  };
}

/** `owner` from a story body: undefined when absent; null (unassign) for null or "" (`<owner />`). */
function ownerReference(fields: Fields): UserRef | null | undefined {
  const value = fields.owner;
  if (value === undefined) return undefined;
  if (value === null || (typeof value === 'string' && value.trim() === '')) return null;
  return userRef(value, "Field 'owner'");
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
