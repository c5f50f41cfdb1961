import type { MembershipClient } from '../clients/membership.client';
import { projectAccessFrom, type ProjectAccess } from './access';
import { LocalCache, type CacheEpoch } from './cache-epoch';
import type { CacheSlot, GuardedCache } from './guarded-cache';

/**
 * The caller's access on a project, from `membership.GetProjectAccess` (NOT_FOUND when unknown or not a
 * member), cached briefly in this process (exact across replicas through the cache epoch) and in Redis: one hash per project (`gateway:access:{<project>}`, a field per user), so
 * writes that change access drop every decision about the project at once (`forgetProject`) instead of
 * scanning the keyspace. The cache is guarded: a decision read before a revocation is never written after it.
 */
export class ProjectAccessResolver {
  private readonly local: LocalCache<ProjectAccess>;

  constructor(
    private readonly membership: MembershipClient,
    private readonly cache: GuardedCache,
    private readonly ttlSeconds: number,
    private readonly epoch: CacheEpoch,
  ) {
    this.local = new LocalCache(epoch, ttlSeconds * 1000);
  }

  /** As for authentication, the cache epoch must have been refreshed during this request. */
  async resolve(projectId: number, userId: number): Promise<ProjectAccess> {
    const localKey = `${projectId}:${userId}`;
    const known = this.local.get(localKey);
    if (known) return known;
    const ticket = this.local.ticket();
    const slot: CacheSlot = { ...projectSlot(projectId), field: String(userId) };
    const cached = await this.cache.read<ProjectAccess>(slot);
    if (cached.value) {
      this.local.set(localKey, cached.value, ticket);
      return cached.value;
    }
    const access = projectAccessFrom(await this.membership.getProjectAccess(projectId), projectId);
    await this.cache.write(slot, cached.generation, access, this.ttlSeconds);
    this.local.set(localKey, access, ticket);
    return access;
  }

  /** After role, member or owner changes: every cached decision about the project goes, on every replica. */
  async forgetProject(projectId: number): Promise<void> {
    await Promise.all([this.cache.invalidate(projectSlot(projectId)), this.epoch.advance()]);
  }
}

const projectSlot = (projectId: number) => ({
  key: `gateway:access:{${projectId}}`,
  generationKey: `gateway:access-generation:{${projectId}}`,
});
