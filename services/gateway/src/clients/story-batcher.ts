import { DomainError } from '@flowboard/service-kit';
import type { boards } from '@flowboard/proto';

/** One BatchGetStories call: the stories of `storyIds` that exist. */
export type FetchStories = (projectId: number, storyIds: number[]) => Promise<boards.Story__Output[]>;

interface Waiter {
  storyId: number;
  resolve(story: boards.Story__Output): void;
  reject(err: unknown): void;
}

/** What boards' BatchGetStories takes at most in one call. */
const MAX_BATCH = 1000;

/**
 * Single-story reads, gathered: every read asked for during one turn of the event loop goes out in one
 * BatchGetStories call per project when the turn is over (setImmediate). Under load, the requests whose Redis
 * answers arrived together reach their story read together, so one gRPC call and one query serve them all
 * instead of one each. Each read still gets its own answer: its story, or the NotFound GetStory gives.
 *
 * The call runs in the context of the read that opened the batch: its request id and trace carry the batch.
 */
export function storyBatcher(fetchStories: FetchStories) {
  let pending = new Map<number, Waiter[]>();
  let scheduled = false;

  const send = (projectId: number, waiters: Waiter[]) => {
    fetchStories(projectId, [...new Set(waiters.map((w) => w.storyId))]).then(
      (stories) => {
        const byId = new Map(stories.map((story) => [Number(story.id), story]));
        for (const waiter of waiters) {
          const story = byId.get(waiter.storyId);
          if (story) waiter.resolve(story);
          else waiter.reject(new DomainError('NotFound', 'Story not found'));
        }
      },
      (err: unknown) => waiters.forEach((waiter) => waiter.reject(err)),
    );
  };

  const flush = () => {
    const batches = pending;
    pending = new Map();
    scheduled = false;
    for (const [projectId, waiters] of batches) {
      for (let at = 0; at < waiters.length; at += MAX_BATCH)
        send(projectId, waiters.slice(at, at + MAX_BATCH));
    }
  };

  return (projectId: number, storyId: number): Promise<boards.Story__Output> =>
    new Promise((resolve, reject) => {
      let waiters = pending.get(projectId);
      if (!waiters) pending.set(projectId, (waiters = []));
      waiters.push({ storyId, resolve, reject });
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    });
}
