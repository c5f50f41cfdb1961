import type { Outbox } from '@flowboard/events';
import type { Store } from '../../board/application/store';
import type { StoryRepository } from '../../stories/application/ports';
import type { CommentRepository } from './ports';

/** What the comment use cases reach. */
export interface CommentsRepositories {
  /** The story the comments belong to: it must exist. */
  stories: StoryRepository;
  comments: CommentRepository;
  /** The comments' change events, written in the change's transaction. */
  outbox: Outbox;
}

export type CommentsStore = Store<CommentsRepositories>;
