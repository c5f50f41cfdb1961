import type { MembershipClient } from '../clients/membership.client';
import { projectAccessFrom, type ProjectAccess } from './access';
import type { CacheSlot, GuardedCache } from './guarded-cache';

/**
 * The caller's access on a project, from `membership.GetProjectAccess` (NOT_FOUND when unknown or not a
 * member), cached briefly in Redis: one hash per project (`gateway:access:{<project>}`, a field per user), so
 * writes that change access drop every decision about the project at once (`forgetProject`) instead of
 * scanning the keyspace. The cache is guarded: a decision read before a revocation is never written after it.
 */
export class ProjectAccessResolver {
  constructor(
    private readonly membership: MembershipClient,
    private readonly cache: GuardedCache,
    private readonly ttlSeconds: number,
  ) {}

  async resolve(projectId: number, userId: number): Promise<ProjectAccess> {
    const slot: CacheSlot = { ...projectSlot(projectId), field: String(userId) };
    const cached = await this.cache.read<ProjectAccess>(slot);
    if (cached.value) return cached.value;
    const access = projectAccessFrom(await this.membership.getProjectAccess(projectId), projectId);
    await this.cache.write(slot, cached.generation, access, this.ttlSeconds);
    return access;
  }

  /** After role, member or owner changes: every cached decision about the project goes. */
  async forgetProject(projectId: number): Promise<void> {
    await this.cache.invalidate(projectSlot(projectId));
  }
}

const projectSlot = (projectId: number) => ({
  key: `gateway:access:{${projectId}}`,
  generationKey: `gateway:access-generation:{${projectId}}`,
});
