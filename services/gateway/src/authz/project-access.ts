import type { MembershipClient } from '../clients/membership.client';
import { projectAccessFrom, type ProjectAccess } from './access';
import type { JsonCache } from './json-cache';

/**
 * The caller's access on a project, from `membership.GetProjectAccess` (NOT_FOUND when unknown or not a
 * member), cached briefly in Redis as `gateway:access:<project>:<user>`. Writes that change access call
 * `forgetProject`.
 */
export class ProjectAccessResolver {
  constructor(
    private readonly membership: MembershipClient,
    private readonly cache: JsonCache,
    private readonly ttlSeconds: number,
  ) {}

  async resolve(projectId: number, userId: number): Promise<ProjectAccess> {
    const key = cacheKey(projectId, userId);
    const cached = await this.cache.get<ProjectAccess>(key);
    if (cached) return cached;
    const access = projectAccessFrom(await this.membership.getProjectAccess(projectId), projectId);
    await this.cache.set(key, access, this.ttlSeconds);
    return access;
  }

  /** After role, member or owner changes: every cached decision about the project goes. */
  async forgetProject(projectId: number): Promise<void> {
    await this.cache.deleteMatching(`gateway:access:${projectId}:*`);
  }
}

const cacheKey = (projectId: number, userId: number) => `gateway:access:${projectId}:${userId}`;
