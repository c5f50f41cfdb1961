import type { CallerKey } from '../../authz/api-keys';
import { insufficientScope } from '../../authz/scope-problem';
import { missingScope, reachesProject } from '../../authz/scopes';
import type { Dto } from '@flowboard/representation';
import { pageDto } from '../../wire/page';
import type { Call } from '../call';
import { page, type Reply } from '../../wire/respond';
import type { RouteDeps } from './deps';
import { readableProjects, STORY_ENRICHMENTS, storyDtosAcrossProjects } from './story-views';
import { get, resourceOperations } from '../operation';
import { V1 } from './paths';

/**
 * The caller's stories across their projects (`/me/stories`, `/me?with=stories`; docs/compat.md §5.1):
 * stories they own, in every project where their access is read or better. A member whose access is `none`
 * cannot read that project's stories (403 on `P/stories`), so its stories never appear here either.
 */
export function meStoryHandlers(deps: RouteDeps) {
  const { membership, boards } = deps;

  return {
    /** `GET /me/stories` (E, F, Pg): one membership call, one ListOwnedStories call, one BatchGetUsers call. */
    async list(call: Call): Promise<Reply> {
      const enrich = call.enrichments(STORY_ENRICHMENTS);
      const paging = call.paging();
      const names = await readableProjects(membership, call.key);
      const { stories, total_items } = await boards.listOwnedStories({
        owner_id: call.user.id,
        project_ids: [...names.keys()],
        where: call.query.get('where') ?? '',
        page: paging.page,
        page_size: paging.pageSize,
        all: false,
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
    access: 'key',
    with: 'story',
    where: 'story',
    ok: { page: 'Story' },
    description: 'The stories the caller owns, in every project where the caller has Read or better.',
    handler: 'list',
  }),
]);
