import { pageWindow } from '../../shared/application/list-window';
import { noSignal, type OutboxSignal } from '../../shared/application/resource-events';
import { storyKey, storyNotFound } from '../../stories/application/story-children';
import { parseTagRef } from '../domain/tags';
import type { StoryTagsPage } from './list-story-tags';
import { publishTagLink, resolveTagRefs } from './tag-support';
import type { TagsRepositories, TagsStore } from './tags-store';

export interface StoryTagsCommand {
  projectId: number;
  storyId: number;
  /** Wire references: `{id}` or `{name}` (an unknown name creates the tag). */
  tags: ReadonlyArray<{ id: number; name: string }>;
  page: number;
  pageSize: number;
  /** The caller (from call metadata): the actor of the link events. */
  actorId: number;
}

export type SetStoryTags = (command: StoryTagsCommand) => Promise<StoryTagsPage>;
export type AddStoryTag = SetStoryTags;

/**
 * `POST S/tags` (`replace` false: add one) and `PUT S/tags` (`replace` true: exactly the given set). Runs under the
 * story row lock, so tag writes on one story queue up; tags named but unknown are created in the same
 * transaction, so a failed write (an unknown id → 400) leaves no new tag behind. Answers the page of the story's
 * tags. Publishes `story.untagged` for each tag taken off, then `story.tagged` for each newly put on (a tag the
 * story carries already: nothing).
 */
function makeStoryTagsWrite(store: TagsStore, replace: boolean, signal: OutboxSignal): SetStoryTags {
  return async (command) => {
    const key = storyKey(command.projectId, command.storyId);
    const refs = command.tags.map((t) => parseTagRef(t, 'tag'));
    const { offset, limit } = pageWindow(command.page, command.pageSize);
    const page = await store.transaction(async (tx) => {
      await writeStoryTags(tx, key, refs, { replace, actorId: command.actorId });
      return tx.tags.listForStory(key.projectId, key.storyId, offset, limit);
    });
    signal();
    return page;
  };
}

/**
 * Puts checked tag references on a story inside a transaction: locks the story (NotFound when it is gone), resolves
 * the references (unknown names created), adds them or (`replace`) makes them the story's whole set, and writes
 * `story.untagged` for each tag taken off, then `story.tagged` for each newly put on. The bulk update uses it too.
 */
export async function writeStoryTags(
  tx: TagsRepositories,
  key: { projectId: number; storyId: number },
  refs: ReturnType<typeof parseTagRef>[],
  options: { replace: boolean; actorId: number },
): Promise<void> {
  if (!(await tx.tags.lockStory(key.projectId, key.storyId))) throw storyNotFound();
  const tags = await resolveTagRefs(tx, { projectId: key.projectId, actorId: options.actorId }, refs, 'tag');
  const ids = tags.map((t) => t.id);
  const { added, removed } = options.replace
    ? await tx.tags.replaceStoryTags(key.projectId, key.storyId, ids)
    : { added: await tx.tags.link(key.projectId, key.storyId, ids), removed: [] };
  const link = { ...key, actorId: options.actorId };
  for (const tag of removed) await publishTagLink(tx.outbox, { ...link, tagged: false, tag });
  for (const tag of tags.filter((t) => added.includes(t.id)).sort((a, b) => a.id - b.id))
    await publishTagLink(tx.outbox, { ...link, tagged: true, tag });
}

export const makeSetStoryTags = (store: TagsStore, signal: OutboxSignal = noSignal): SetStoryTags =>
  makeStoryTagsWrite(store, true, signal);
export const makeAddStoryTag = (store: TagsStore, signal: OutboxSignal = noSignal): AddStoryTag =>
  makeStoryTagsWrite(store, false, signal);
