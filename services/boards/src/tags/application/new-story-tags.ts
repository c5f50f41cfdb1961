import type { NewStoryPart } from '../../stories/application/create-story';
import { parseTagRef } from '../domain/tags';
import { publishTagLink, resolveTagRefs } from './tag-support';
import type { TagsRepositories } from './tags-store';

/**
 * A new story's tags (CreateStory's `tags`): the references checked before any I/O, then resolved (unknown names
 * created) and linked in the story's transaction, so a failed create leaves no new tag; `story.tagged` for each.
 */
export const newStoryTags: NewStoryPart<TagsRepositories> = (command, creatorId) => {
  const refs = (command.tags ?? []).map((t) => parseTagRef(t));
  if (refs.length === 0) return undefined;
  return async (tx, story) => {
    const tags = await resolveTagRefs(tx, { projectId: story.projectId, actorId: creatorId }, refs);
    await tx.tags.link(
      story.projectId,
      story.id,
      tags.map((t) => t.id),
    );
    const link = { projectId: story.projectId, storyId: story.id, actorId: creatorId, tagged: true };
    for (const tag of tags) await publishTagLink(tx.outbox, { ...link, tag });
  };
};
