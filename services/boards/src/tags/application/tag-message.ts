import type { boards } from '@flowboard/proto';
import type { TagRecord } from './ports';

/** TagRecord → Tag message: the gRPC answer, and the resource of `story.tagged` / `story.untagged` events. */
export const toTagMessage = (tag: TagRecord): boards.Tag => ({
  id: tag.id,
  name: tag.name,
  version: tag.version,
});

/** The `tags` enrichment of stories (BatchGetStoryTags; ListStories with include_tags), in map order. */
export const storyTagsMessages = (byStory: ReadonlyMap<number, TagRecord[]>): boards.StoryTags[] =>
  [...byStory].map(([storyId, tags]) => ({ story_id: storyId, tags: tags.map(toTagMessage) }));
