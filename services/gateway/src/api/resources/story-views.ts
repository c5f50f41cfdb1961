import type { boards } from '@flowboard/proto';
import {
  type Dto,
  commentDto,
  commentUserIds,
  historyUserIds,
  milestoneDto,
  stepDto,
  storyDto,
  storyMetricsDto,
  storyUserIds,
  tagDto,
  taskDto,
  taskUserIds,
  type UsersById,
} from '@flowboard/representation';
import type { CallerKey } from '../../authz/api-keys';
import { reachesProject } from '../../authz/scopes';
import type { EnrichmentVocabulary } from '../../wire/enrichments';
import type { Query } from '../../wire/query';
import type { Call } from '../call';
import type { RouteDeps } from './deps';

/*
 * Stories as every resource that shows them renders them (stories, phases' and tags' story lists, /me/stories):
 * the `with=` vocabulary, the batched enrichments, the user aliases a filter needs, and whether the response cache
 * may keep the answer. The story routes themselves are in stories.routes.ts.
 */

export const STORY_ENRICHMENTS: EnrichmentVocabulary = {
  names: ['details', 'tags', 'tasks', 'comments', 'milestones', 'steps', 'metrics'],
};

/** Filters naming users (owner:/creator:) need the members, so names can match (docs/compat.md §4.2). */
const NAMES_USERS = /\b(owner|creator)\s*:/i;

/** Enrichments whose open milestones and steps run to now: a cached answer would be wrong a second later. */
const RUNS_TO_NOW = /\b(milestones|steps|metrics|everything)\b/i;

/**
 * Whether a board read's answer may come from the response cache: it must depend on the board and the users'
 * names only. History enrichments depend on the clock, and owner:/creator: filters on the project's members.
 */
export function servableFromCache(query: Query): boolean {
  return (
    // A sync's answer carries the position of its own read: always read anew.
    !query.has('updatedSince') &&
    !query.getAll('with').some((value) => RUNS_TO_NOW.test(value)) &&
    !query.getAll('where').some((value) => NAMES_USERS.test(value))
  );
}

/**
 * Stories as API resources: creator, owner, task finishers and comment authors resolved in ONE batch, the
 * project name from the access check. `with=tags`/`tasks`/`comments` add one batched boards call each; the arrays
 * are always present when requested (even empty).
 */
export async function storyDtosFor(
  deps: Pick<RouteDeps, 'users' | 'boards'>,
  call: { project: Pick<Call['project'], 'projectId' | 'projectName'> },
  stories: boards.Story__Output[],
  enrich: ReadonlySet<string>,
  /** The stories' tags, when the call that listed them brought them along (ListStories with include_tags). */
  listedTags?: boards.StoryTags__Output[],
): Promise<Dto[]> {
  const { projectId, projectName } = call.project;
  const storyIds = stories.map((s) => s.id);
  const wantTasks = enrich.has('tasks') && stories.length > 0;
  const wantComments = enrich.has('comments') && stories.length > 0;
  // with=tags: one BatchGetStoryTags per response, in parallel with the batches below (unless already listed).
  const tagBatch = listedTags
    ? Promise.resolve({ stories: listedTags })
    : enrich.has('tags') && stories.length > 0
      ? deps.boards.batchGetStoryTags({ project_id: projectId, story_ids: storyIds })
      : undefined;
  tagBatch?.catch(() => undefined); // awaited below; this only keeps an early failure from going unhandled
  const [taskBatch, commentBatch, historyBatch] = await Promise.all([
    wantTasks ? deps.boards.batchGetStoryTasks({ project_id: projectId, story_ids: storyIds }) : undefined,
    wantComments
      ? deps.boards.batchGetStoryComments({ project_id: projectId, story_ids: storyIds })
      : undefined,
    storyHistoryBatch(deps.boards, projectId, storyIds, enrich),
  ]);
  const history = new Map((historyBatch?.stories ?? []).map((h) => [h.story_id, h]));
  const tasks = new Map((taskBatch?.stories ?? []).map((s) => [s.story_id, s.tasks]));
  const tags = new Map(((await tagBatch)?.stories ?? []).map((s) => [s.story_id, s.tags]));
  const comments = new Map((commentBatch?.stories ?? []).map((s) => [s.story_id, s.comments]));
  const users = await deps.users.resolve([
    ...storyUserIds(stories),
    ...[...tasks.values()].flatMap(taskUserIds),
    ...[...comments.values()].flatMap(commentUserIds),
    ...[...history.values()].flatMap(historyUserIds),
  ]);
  const view = { project: { id: projectId, name: projectName }, users, details: enrich.has('details') };
  // One object per story, enrichments added in order (JSON keeps it): pages build 100 to 1,000 of these.
  return stories.map((story) => {
    const dto = storyDto(story, view);
    if (enrich.has('tags')) dto.tags = (tags.get(story.id) ?? []).map(tagDto);
    if (enrich.has('tasks')) dto.tasks = (tasks.get(story.id) ?? []).map((t) => taskDto(t, users));
    if (enrich.has('comments'))
      dto.comments = (comments.get(story.id) ?? []).map((c) => commentDto(c, users));
    // historyBatch is there exactly when milestones, steps or metrics were asked for.
    return historyBatch ? Object.assign(dto, storyHistoryFields(history.get(story.id), enrich, users)) : dto;
  });
}

/**
 * The projects whose stories a key may read, with their names (for `project {id, name}`): ONE membership call, the
 * caller's readable projects, narrowed to those a key limited to some projects reaches.
 */
export async function readableProjects(
  membership: RouteDeps['membership'],
  key: CallerKey,
): Promise<Map<number, string>> {
  const { projects } = await membership.listReadableProjects({});
  return new Map(projects.filter((p) => reachesProject(key.scope, p.id)).map((p) => [p.id, p.name]));
}

/**
 * Stories of several projects (/me/stories, /me/search) as DTOs, in the order given. Without enrichments: one
 * BatchGetUsers for the page; with them, one batch per project on the page (not per story).
 */
export async function storyDtosAcrossProjects(
  deps: Pick<RouteDeps, 'users' | 'boards'>,
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

/** The members as filter aliases, when the filter names users (owner:/creator:); else none are needed. */
export async function filterUsers(
  membership: RouteDeps['membership'],
  projectId: number,
  where: string,
): Promise<boards.UserAlias[]> {
  if (!NAMES_USERS.test(where)) return [];
  const { members } = await membership.getProject({ project_id: projectId, include_members: true });
  return members.map((u) => ({ id: u.id, user_name: u.user_name, name: u.name }));
}

/**
 * `with=milestones|steps|metrics` on stories: ONE BatchGetStoryHistory call for the whole page, whichever of
 * the three are requested; undefined (no call) when none is, or the page is empty.
 */
export function storyHistoryBatch(
  boards: RouteDeps['boards'],
  projectId: number,
  storyIds: number[],
  enrich: ReadonlySet<string>,
): Promise<boards.BatchGetStoryHistoryResponse__Output> | undefined {
  const parts = {
    milestones: enrich.has('milestones'),
    steps: enrich.has('steps'),
    metrics: enrich.has('metrics'),
  };
  if (storyIds.length === 0 || !(parts.milestones || parts.steps || parts.metrics)) return undefined;
  return boards.batchGetStoryHistory({ project_id: projectId, story_ids: storyIds, ...parts });
}

/** The requested history fields of one story, in the order milestones, steps, metrics; `[]` when none. */
export function storyHistoryFields(
  history: boards.StoryHistory__Output | undefined,
  enrich: ReadonlySet<string>,
  users: UsersById,
): Dto {
  return {
    milestones: enrich.has('milestones')
      ? (history?.milestones ?? []).map((m) => milestoneDto(m, users))
      : undefined,
    steps: enrich.has('steps') ? (history?.steps ?? []).map((s) => stepDto(s, users)) : undefined,
    metrics: enrich.has('metrics') && history?.metrics ? storyMetricsDto(history.metrics) : undefined,
  };
}
