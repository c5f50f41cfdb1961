import type { MembershipClient } from '../clients/membership.client';
import { projectAccessFrom, type ProjectAccess } from './access';
import type { JsonCache } from './json-cache';

/**
 * The caller's access on a project, from `membership.GetProjectAccess` (NOT_FOUND when unknown or not a
 * member), cached briefly in Redis: one hash per project (`gateway:access:<project>`, a field per user), so
 * writes that change access drop every decision about the project with one DEL (`forgetProject`) instead of
 * scanning the keyspace.
 */
export class ProjectAccessResolver {
  constructor(
    private readonly membership: MembershipClient,
    private readonly cache: JsonCache,
    private readonly ttlSeconds: number,
  ) {}

  async resolve(projectId: number, userId: number): Promise<ProjectAccess> {
    const key = cacheKey(projectId);
    const cached = await this.cache.getField<ProjectAccess>(key, String(userId));
    if (cached) return cached;
    const access = projectAccessFrom(await this.membership.getProjectAccess(projectId), projectId);
    await this.cache.setField(key, String(userId), access, this.ttlSeconds);
    return access;
  }

  /** After role, member or owner changes: every cached decision about the project goes. */
  async forgetProject(projectId: number): Promise<void> {
    await this.cache.delete(cacheKey(projectId));
  }
}

const cacheKey = (projectId: number) => `gateway:access:${projectId}`;
