import { DomainError } from '@flowboard/service-kit';
import { decodeSyncToken, encodeSyncToken } from '../../wire/cursor';
import { cursorPageDto, type Paging } from '../../wire/page';
import { StatusProblem } from '../../wire/problem';
import { page, type Reply } from '../../wire/respond';
import type { Call } from '../call';
import type { RouteDeps } from './deps';
import { filterUsers, storyDtosFor } from './story-views';

const invalidParameter = (message: string) =>
  new DomainError('InvalidArgument', message, { problem: 'invalid-parameter' });

/** 410: the token's deletions are no longer retained (or it is another database's): sync again from the start. */
const syncGone = (why: string) => new StatusProblem(410, 'history-gone', 'Gone', why);

/**
 * `GET P/stories?cursor=` and `?updatedSince=` (README "Sync: cursors and updatedSince"): a page in id order after
 * the cursor; with updatedSince, only the stories changed since the token, the deleted ones in `deleted`, and on
 * the last page the token of the next sync (`syncToken`: the position of the walk's FIRST page, so whatever changed
 * during the walk is listed again next time rather than missed).
 */
export async function storyWalk(
  deps: Pick<RouteDeps, 'users' | 'boards' | 'membership'>,
  call: Call,
  enrich: ReadonlySet<string>,
  paging: Paging,
): Promise<Reply> {
  const { boards, membership } = deps;
  const { projectId } = call.project;
  const where = call.query.get('where') ?? '';
  const updatedSince = call.query.getAll('updatedSince');
  if (updatedSince.length > 1)
    throw invalidParameter("Query argument 'updatedSince' is given more than once.");
  if (!paging.cursor && call.query.has('page'))
    throw invalidParameter("updatedSince pages by cursor: follow 'nextCursor' instead of giving 'page'.");
  // updatedSince without a cursor begins a walk.
  const cursor = paging.cursor ?? paging.beginWalk?.();
  if (!cursor) throw new Error('story walk without a cursor');
  const walking = { ...paging, cursor };
  const { state } = cursor;
  let since = state.since; // a cursor carries its sync
  if (updatedSince.length === 1) {
    if (where.trim() !== '')
      throw invalidParameter(
        "'where' cannot narrow an updatedSince sync: a story that stops matching would stay in a mirror. Sync the " +
          'whole board and filter on your side.',
      );
    const given = decodeSyncToken(updatedSince[0] as string, projectId);
    if (since !== undefined && since !== given)
      throw invalidParameter("This cursor belongs to a sync from another 'updatedSince'.");
    since = given;
  }
  const after = typeof state.after === 'number' ? state.after : 0;
  const withTags = enrich.has('tags');
  const listed = await boards.listStories({
    project_id: projectId,
    where: since === undefined ? where : '',
    page: 1,
    page_size: paging.pageSize,
    users: since === undefined ? await filterUsers(membership, projectId, where) : [],
    include_tags: withTags,
    keyset: { after_id: after },
    ...(since === undefined ? {} : { sync: { since } }),
  });
  if (listed.sync_gone !== '') throw syncGone(listed.sync_gone);
  const dtos = await storyDtosFor(
    deps,
    call,
    listed.stories,
    enrich,
    withTags ? listed.story_tags : undefined,
  );
  const lastId = Math.max(after, ...listed.stories.map((s) => s.id), ...listed.deleted.map((t) => t.id));
  if (since === undefined) {
    const next = listed.more ? { after: lastId, page: state.page + 1 } : undefined;
    return page('story', cursorPageDto(dtos, walking, listed.total_items, next));
  }
  const walk = state.walk ?? listed.sync_position;
  const next = listed.more ? { after: lastId, page: state.page + 1, since, walk } : undefined;
  return page(
    'story',
    cursorPageDto(dtos, walking, listed.total_items, next, {
      deleted: listed.deleted.map((t) => ({ id: t.id, deletedTime: t.delete_time })),
      ...(next ? {} : { syncToken: encodeSyncToken(projectId, walk) }),
    }),
  );
}
