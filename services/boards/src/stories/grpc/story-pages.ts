import type { boards } from '@flowboard/proto';
import { DomainError } from '@flowboard/service-kit';
import { formatTimestamp } from '../../shared/domain/timestamp';
import type { StoryRecord } from '../application/ports';
import type { StoriesUseCases } from '../application/stories-use-cases';
import { formatSyncPosition } from '../domain/sync-position';

/**
 * ListStories' three ways (README "Sync: cursors and updatedSince"): a page in board order (page/pageSize), a page in
 * id order after a story (keyset: cursors), or the changes since a sync position (sync: updatedSince).
 */
export async function listStoryPage(
  useCases: StoriesUseCases,
  request: boards.ListStoriesRequest__Output,
): Promise<
  { stories: StoryRecord[]; total: number; extra: Partial<boards.ListStoriesResponse> } | { gone: string }
> {
  const base = { projectId: request.project_id, pageSize: request.page_size };
  if (request.sync) {
    if (request.where.trim() !== '')
      throw new DomainError('InvalidArgument', "'where' cannot narrow a sync (updatedSince).", {
        problem: 'invalid-parameter',
      });
    const changes = await useCases.listStoryChanges({
      ...base,
      since: request.sync.since,
      afterId: request.keyset?.after_id ?? 0,
    });
    if ('gone' in changes) return changes;
    return {
      stories: changes.stories,
      total: changes.total,
      extra: {
        more: changes.more,
        deleted: changes.deleted.map((t) => ({ id: t.id, delete_time: formatTimestamp(t.deletedAt) })),
        sync_position: formatSyncPosition(changes.position),
      },
    };
  }
  if (request.keyset) {
    const { stories, total, more } = await useCases.listStoriesById({
      ...base,
      where: request.where,
      users: request.users,
      afterId: request.keyset.after_id,
    });
    return { stories, total, extra: { more } };
  }
  const { stories, total } = await useCases.listStories({
    ...base,
    where: request.where,
    page: request.page,
    users: request.users,
  });
  return { stories, total, extra: {} };
}
