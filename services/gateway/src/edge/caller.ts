import type { Request } from 'express';
import type { membership } from '@flowboard/proto';
import { DomainError } from '@flowboard/service-kit';
import type { ApiKeyAuthenticator } from '../authz/api-keys';
import { allows, type ProjectAccess } from '../authz/access';
import type { ProjectAccessResolver } from '../authz/project-access';
import { apiKeyHash, extractApiKey } from '../authz/credentials';
import type { ReadAhead } from './read-ahead';
import type { RequestRecord } from './record';
import type { FoundRoute } from './routing';

/** Who is calling: the key's user, and the key's hash (its rate-limit counter and cache entries use it). */
export interface Principal {
  user: membership.User__Output;
  keyHash: string;
}

/**
 * 401 unless the request carries a valid API key (docs/compat.md §3.1 says where it may be). Locally cached
 * decisions are trusted only once the cache epoch the read-ahead started has been read.
 */
export async function authenticateCaller(
  req: Request,
  record: RequestRecord,
  ahead: ReadAhead,
  authenticator: ApiKeyAuthenticator,
): Promise<Principal> {
  const key = extractApiKey(req.headers, record.query);
  if (key === undefined) throw new DomainError('Unauthenticated', 'An API key is required.');
  await ahead.cacheEpochRead;
  const user = await authenticator.authenticate(key, ahead.keyHash);
  record.context.userId = user.id; // every log line and gRPC call from here on names the caller
  return { user, keyHash: ahead.keyHash ?? apiKeyHash(key) };
}

/**
 * Project routes (`P...`) declare the access they need; the caller's access comes from membership (cached).
 * Not a member or no such project → 404 (existence is never revealed); a lower level → 403. Other routes: none.
 */
export async function authorizeProject(
  resolver: ProjectAccessResolver,
  found: FoundRoute,
  principal: Principal | undefined,
): Promise<ProjectAccess | undefined> {
  const needed = found.route.access;
  if (!needed) return undefined;
  const projectId = found.params.projectId;
  if (typeof projectId !== 'number' || !principal) {
    throw new Error(`route ${found.route.pattern} declares access but has no :projectId or no caller`);
  }
  const access = await resolver.resolve(projectId, principal.user.id);
  if (!allows(access.access, needed)) {
    throw new DomainError('PermissionDenied', `This needs ${needed} access to the project.`);
  }
  return access;
}
