import type { Outbox } from '@flowboard/events';
import type { Store } from '../../board/application/store';
import type { StoryRepository } from '../../stories/application/ports';
import type { TagRepository } from './ports';

/** What the tag use cases reach. */
export interface TagsRepositories {
  tags: TagRepository;
  /** The stories a tag is put on: they must exist, and a tag's stories are answered as story pages. */
  stories: StoryRepository;
  /** `story.tagged` / `story.untagged`, written in the change's transaction. */
  outbox: Outbox;
}

export type TagsStore = Store<TagsRepositories>;
