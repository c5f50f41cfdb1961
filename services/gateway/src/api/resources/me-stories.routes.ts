import type { CallerKey } from '../../authz/api-keys';
import { insufficientScope } from '../../authz/scope-problem';
import { missingScope, reachesProject } from '../../authz/scopes';
import type { Dto } from '@flowboard/representation';
import { DomainError } from '@flowboard/service-kit';
import { cursorPageDto, keysetAnswered, pageDto } from '../../wire/page';
import type { Call } from '../call';
import { page, type Reply } from '../../wire/respond';
import type { RouteDeps } from './deps';
import { readableProjects, STORY_ENRICHMENTS, storyDtosAcrossProjects } from './story-views';
import { get, resourceOperations } from '../operation';
import { V1 } from './paths';

/**
 * A /me/stories cursor's `after`: `"<story id>:<project id>"` (story ids are numbered per project, so the walk is in
 * (id, project id) order and stands between two such pairs), or 0 before the first page.
 */
export function ownedPosition(after: number | string): { after_id: number; after_project_id: number } {
  if (after === 0) return { after_id: 0, after_project_id: 0 };
  const m = typeof after === 'string' ? /^(\d{1,15}):(\d{1,15})$/.exec(after) : null;
  if (!m)
    throw new DomainError(
      'InvalidArgument',
      "Query argument 'cursor' is invalid: it belongs to another list.",
      {
        problem: 'invalid-parameter',
      },
    );
  return { after_id: Number(m[1]), after_project_id: Number(m[2]) };
}

/**
 * The caller's stories across their projects (`/me/stories`, `/me?with=stories`; docs/compat.md §5.1):
 * stories they own, in every project where their access is read or better. A member whose access is `none`
 * cannot read that project's stories (403 on `P/stories`), so its stories never appear here either.
 */
export function meStoryHandlers(deps: RouteDeps) {
  const { membership, boards } = deps;

  return {
    /**
     * `GET /me/stories` (E, F, Pg): one membership call, one ListOwnedStories call, one BatchGetUsers call. By
     * cursor (README "Sync: cursors and updatedSince"): in (story id, project id) order.
     */
    async list(call: Call): Promise<Reply> {
      const enrich = call.enrichments(STORY_ENRICHMENTS);
      const paging = call.paging();
      const names = await readableProjects(membership, call.key);
      const request = {
        owner_id: call.user.id,
        project_ids: [...names.keys()],
        where: call.query.get('where') ?? '',
        all: false,
      };
      const cursor = paging.cursor;
      if (cursor) {
        const listed = await boards.listOwnedStories({
          ...request,
          page: 1,
          page_size: paging.pageSize,
          keyset: ownedPosition(cursor.state.after),
        });
        // An older boards answers an ordinary page without `keyset`: 503, never a short walk.
        const { more } = keysetAnswered(listed.keyset, 'boards');
        const dtos = await storyDtosAcrossProjects(deps, listed.stories, names, enrich);
        const last = listed.stories.at(-1);
        const next =
          more && last ? { after: `${last.id}:${last.project_id}`, page: cursor.state.page + 1 } : undefined;
        return page('story', cursorPageDto(dtos, paging, listed.total_items, next));
      }
      const { stories, total_items } = await boards.listOwnedStories({
        ...request,
        page: paging.page,
        page_size: paging.pageSize,
      });
      const dtos = await storyDtosAcrossProjects(deps, stories, names, enrich);
      return page('story', pageDto(dtos, paging, total_items));
    },
  };
}

/**
 * `/me?with=stories`: `{id, text}` of every story the caller owns, in the /me/stories order (one membership
 * call, one boards call).
 */
export async function ownedStoryRefs(
  { membership, boards }: Pick<RouteDeps, 'membership' | 'boards'>,
  userId: number,
  key: CallerKey,
): Promise<Dto[]> {
  // The stories of the board: a key must be allowed to read them (`stories`), in the projects it reaches.
  const missing = missingScope(key.scope, { group: 'stories', write: false });
  if (missing) throw insufficientScope(missing, `This API key lacks the scope '${missing}' (with=stories).`);
  const { projects } = await membership.listReadableProjects({});
  const { stories } = await boards.listOwnedStories({
    owner_id: userId,
    project_ids: projects.map((p) => p.id).filter((id) => reachesProject(key.scope, id)),
    where: '',
    page: 1,
    page_size: 1,
    all: true,
  });
  return stories.map((s) => ({ id: s.id, text: s.text }));
}

/**
 * This resource's operations, each declared once: the router and the OpenAPI document are built from them.
 * The caller's stories across the projects they may read: no project in the path, so no access check here.
 */
export const meStoryOperations = resourceOperations('Users and API keys', 'stories', meStoryHandlers, [
  get(`${V1}/me/stories`, 'listMyStories', 'List my stories', {
    cursor: true,
    access: 'key',
    with: 'story',
    where: 'story',
    ok: { page: 'Story' },
    description:
      'The stories the caller owns, in every project where the caller has Read or better: by project id, then ' +
      'board order; by cursor (`cursor=`), by story id (creation order within a project), then project id.',
    handler: 'list',
  }),
]);
