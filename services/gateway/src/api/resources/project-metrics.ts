import { type Dto, projectMetricsDto } from '@flowboard/representation';
import type { RouteDeps } from './deps';

/**
 * `with=metrics` on projects: ONE BatchGetProjectMetrics call for a whole page of projects; every project gets
 * a full metrics object (all 0 until something finishes, docs/compat.md §5.2). Undefined when not requested.
 */
export async function projectMetricsFor(
  boards: RouteDeps['boards'],
  projectIds: number[],
  enrich: ReadonlySet<string>,
): Promise<Map<number, Dto> | undefined> {
  if (!enrich.has('metrics')) return undefined;
  const byProject = new Map<number, Dto>(projectIds.map((id) => [id, projectMetricsDto(undefined)]));
  if (projectIds.length === 0) return byProject;
  const { projects } = await boards.batchGetProjectMetrics({ project_ids: projectIds });
  for (const m of projects) byProject.set(m.project_id, projectMetricsDto(m));
  return byProject;
}
