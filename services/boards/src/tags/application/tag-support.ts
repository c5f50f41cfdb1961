import type { Outbox } from '@flowboard/events';
import { DomainError } from '@flowboard/service-kit';
import { pageWindow } from '../../shared/application/list-window';
import { publishBoardChange, publishStoryChange } from '../../shared/application/resource-events';
import type { FilterNode } from '../../shared/domain/filter';
import { requirePositiveId } from '../../shared/domain/ids';
import type { StoryRecord, UserAlias } from '../../stories/application/ports';
import { MAX_TAG_REFS, parseTagPathRef, uniqueNames, type TagRef } from '../domain/tags';
import type { TagRecord } from './ports';
import { toTagMessage } from './tag-message';
import type { TagsRepositories } from './tags-store';

/** Shared steps of the tag use cases (docs/compat.md §5.5). */

export const tagNotFound = () => new DomainError('NotFound', 'Tag not found');

export const projectKey = (projectId: number): number => requirePositiveId('project_id', projectId);

/** `{tag}` from a path: a number is tried as an id first, then as a name (ignoring case); none → 404. */
export async function resolvePathTag(
  repos: TagsRepositories,
  projectId: number,
  raw: string,
): Promise<TagRecord> {
  const ref = parseTagPathRef(raw);
  if (!ref) throw tagNotFound();
  const byId = ref.id !== undefined ? await repos.tags.find(projectId, ref.id) : undefined;
  const tag = byId ?? (await repos.tags.findByName(projectId, ref.name));
  if (!tag) throw tagNotFound();
  return tag;
}

/** A tag's own `tag.*` event (its subject: the tag), written in the change's transaction. */
export function publishTagChange(
  outbox: Outbox,
  change: {
    projectId: number;
    actorId: number;
    type: 'tag.created' | 'tag.updated' | 'tag.deleted';
    tag: TagRecord;
  },
): Promise<void> {
  const { projectId, actorId, type, tag } = change;
  return publishBoardChange(outbox, { projectId, actorId, type, id: tag.id, resource: toTagMessage(tag) });
}

/**
 * The tags body references name, deduplicated, creating the tags named but unknown (`tag.created` for each) (docs/compat.md §5.3: an
 * unknown name creates the tag; an unknown id → 400). Call inside the write's transaction, so a failed write
 * creates no tag.
 */
export async function resolveTagRefs(
  repos: TagsRepositories,
  write: { projectId: number; actorId: number },
  refs: readonly TagRef[],
  field = 'tags',
): Promise<TagRecord[]> {
  const { projectId, actorId } = write;
  if (refs.length > MAX_TAG_REFS)
    throw new DomainError('InvalidArgument', `Invalid ${field}: at most ${MAX_TAG_REFS} tags per request.`, {
      problem: 'invalid-field',
    });
  const wantedIds = [...new Set(refs.flatMap((r) => (r.kind === 'id' ? [r.id] : [])))];
  const found = new Map((await repos.tags.findByIds(projectId, wantedIds)).map((t) => [t.id, t]));
  const names: string[] = [];
  const tags = new Map<number, TagRecord>();
  for (const ref of refs) {
    const known = ref.kind === 'id' ? found.get(ref.id) : undefined;
    if (ref.kind === 'name') names.push(ref.name);
    else if (known) tags.set(known.id, known);
    // A numeric string that is no tag's id is a name (docs/compat.md §1.4: a string in a tag reference is a
    // name).
    else if (ref.name !== undefined) names.push(ref.name);
    else
      throw new DomainError('InvalidArgument', `Invalid ${field}: no tag ${ref.id} in this project.`, {
        problem: 'invalid-reference',
      });
  }
  for (const name of uniqueNames(names)) {
    const { tag, created } = await repos.tags.ensure(projectId, name);
    if (created) await publishTagChange(repos.outbox, { projectId, actorId, type: 'tag.created', tag });
    if (!tags.has(tag.id)) tags.set(tag.id, tag);
  }
  return [...tags.values()];
}

/** A page of the stories carrying the tag, in board order, optionally narrowed by a story filter. */
export async function tagStoriesPage(
  repos: TagsRepositories,
  projectId: number,
  tagId: number,
  query: { filter?: FilterNode; users?: readonly UserAlias[]; page: number; pageSize: number },
): Promise<{ stories: StoryRecord[]; total: number }> {
  const { offset, limit } = pageWindow(query.page, query.pageSize);
  const ids = await repos.tags.storyIds(projectId, tagId);
  if (ids.length === 0) return { stories: [], total: 0 };
  return repos.stories.list(projectId, {
    filter: query.filter,
    ids,
    users: query.users ?? [],
    offset,
    limit,
  });
}

/** Story ids from a body (positive, deduplicated, in order); one that names no story → 400 naming it. */
export async function requireStories(
  repos: TagsRepositories,
  projectId: number,
  storyIds: readonly number[],
): Promise<number[]> {
  const ids = [...new Set(storyIds)];
  const bad = ids.find((id) => !Number.isSafeInteger(id) || id <= 0);
  const existing = new Set(
    bad === undefined ? await repos.tags.existingStoryIds(projectId, ids) : ([] as number[]),
  );
  const missing = bad ?? ids.find((id) => !existing.has(id));
  if (missing !== undefined)
    throw new DomainError(
      'InvalidArgument',
      `Invalid story reference: no story ${missing} in this project.`,
      {
        problem: 'invalid-reference',
      },
    );
  return ids;
}

/**
 * A tag put on (`story.tagged`) or taken off (`story.untagged`) a story: the resource is the tag, the subject the
 * story, whose change it is.
 */
export function publishTagLink(
  outbox: Outbox,
  link: { projectId: number; storyId: number; actorId: number; tagged: boolean; tag: TagRecord },
): Promise<void> {
  return publishStoryChange(outbox, {
    projectId: link.projectId,
    storyId: link.storyId,
    actorId: link.actorId,
    type: link.tagged ? 'story.tagged' : 'story.untagged',
    resource: toTagMessage(link.tag),
  });
}
