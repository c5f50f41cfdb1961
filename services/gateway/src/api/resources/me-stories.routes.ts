import type { CallerKey } from '../../authz/api-keys';
import { insufficientScope } from '../../authz/scope-problem';
import { missingScope, reachesProject } from '../../authz/scopes';
import type { boards } from '@flowboard/proto';
import { type Dto, storyDto, storyUserIds } from '@flowboard/representation';
import { pageDto } from '../../wire/page';
import type { Call } from '../call';
import { page, type Reply } from '../../wire/respond';
import type { RouteDeps } from './deps';
import { STORY_ENRICHMENTS, storyDtosFor } from './story-views';
import { get, resourceOperations } from '../operation';
import { V1 } from './paths';

/**
 * The caller's stories across their projects (`/me/stories`, `/me?with=stories`; docs/compat.md §5.1):
 * stories they own, in every project where their access is read or better. A member whose access is `none`
 * cannot read that project's stories (403 on `P/stories`), so its stories never appear here either.
 */
export function meStoryHandlers(deps: RouteDeps) {
  const { membership, boards } = deps;

  /**
   * ONE membership call: the projects the caller may read with this key (one limited to some projects reaches
   * only those), with their names (for `project {id, name}`).
   */
  async function readableProjects(key: CallerKey): Promise<Map<number, string>> {
    const { projects } = await membership.listReadableProjects({});
    return new Map(projects.filter((p) => reachesProject(key.scope, p.id)).map((p) => [p.id, p.name]));
  }

  /** Full story DTOs. Without enrichments: one BatchGetUsers for the page; with them, one batch per project. */
  async function dtos(
    stories: boards.Story__Output[],
    names: ReadonlyMap<number, string>,
    enrich: ReadonlySet<string>,
  ): Promise<Dto[]> {
    const project = (id: number) => ({ id, name: names.get(id) ?? '' });
    if (enrich.size === 0 || (enrich.size === 1 && enrich.has('details'))) {
      const users = await deps.users.resolve(storyUserIds(stories));
      return stories.map((s) =>
        storyDto(s, { project: project(s.project_id), users, details: enrich.has('details') }),
      );
    }
    // The batch RPCs of the enrichments are per project: one call per project on the page (not per story).
    const groups = new Map<number, boards.Story__Output[]>();
    for (const s of stories) groups.set(s.project_id, [...(groups.get(s.project_id) ?? []), s]);
    const byKey = new Map<string, Dto>();
    await Promise.all(
      [...groups].map(async ([projectId, group]) => {
        const call = { project: { projectId, projectName: project(projectId).name } };
        const built = await storyDtosFor(deps, call, group, enrich);
        group.forEach((s, i) => byKey.set(`${projectId}:${s.id}`, built[i] as Dto));
      }),
    );
    return stories.map((s) => byKey.get(`${s.project_id}:${s.id}`) as Dto);
  }

  return {
    /** `GET /me/stories` (E, F, Pg): one membership call, one ListOwnedStories call, one BatchGetUsers call. */
    async list(call: Call): Promise<Reply> {
      const enrich = call.enrichments(STORY_ENRICHMENTS);
      const paging = call.paging();
      const names = await readableProjects(call.key);
      const { stories, total_items } = await boards.listOwnedStories({
        owner_id: call.user.id,
        project_ids: [...names.keys()],
        where: call.query.get('where') ?? '',
        page: paging.page,
        page_size: paging.pageSize,
        all: false,
      });
      return page('story', pageDto(await dtos(stories, names, enrich), paging, total_items));
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
