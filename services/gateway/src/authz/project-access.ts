import type { MembershipClient } from '../clients/membership.client';
import { projectAccessFrom, type ProjectAccess } from './access';
import { DecisionCache, type CacheEpoch, type CacheSlot, type GuardedCache } from '../cache';

/**
 * The caller's access on a project, from `membership.GetProjectAccess` (NOT_FOUND when unknown or not a
 * member), cached briefly in this replica's memory and in Redis: one hash per project
 * (`gateway:access:{<project>}`, a field per user), so writes that change access drop every decision about the
 * project at once (`forgetProject`) instead of scanning the keyspace. A decision read before a revocation is
 * never stored after it.
 */
export class ProjectAccessResolver {
  private readonly cache: DecisionCache<ProjectAccess>;

  constructor(
    private readonly membership: MembershipClient,
    shared: GuardedCache,
    ttlSeconds: number,
    epoch: CacheEpoch,
  ) {
    this.cache = new DecisionCache(shared, epoch, ttlSeconds);
  }

  /** As for authentication, the cache epoch must have been refreshed during this request. */
  async resolve(projectId: number, userId: number): Promise<ProjectAccess> {
    const slot: CacheSlot = { ...projectSlot(projectId), field: String(userId) };
    return this.cache.get(`${projectId}:${userId}`, slot, async () =>
      projectAccessFrom(await this.membership.getProjectAccess({ project_id: projectId }), projectId),
    );
  }

  /** After role, member or owner changes: every cached decision about the project goes, on every replica. */
  async forgetProject(projectId: number): Promise<void> {
    await this.cache.invalidate(projectSlot(projectId));
  }
}

const projectSlot = (projectId: number) => ({
  key: `gateway:access:{${projectId}}`,
  generationKey: `gateway:access-generation:{${projectId}}`,
});
