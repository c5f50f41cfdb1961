import type { Request } from 'express';
import type { membership } from '@flowboard/proto';
import { DomainError } from '@flowboard/service-kit';
import type { ApiKeyAuthenticator, CallerKey } from '../authz/api-keys';
import { allows, type ProjectAccess } from '../authz/access';
import type { ProjectAccessResolver } from '../authz/project-access';
import { apiKeyHash, extractApiKey } from '../authz/credentials';
import { missingScope, reachesEveryProject, reachesProject, scopeName } from '../authz/scopes';
import { insufficientScope } from '../authz/scope-problem';
import type { ReadAhead } from './read-ahead';
import type { RequestRecord } from './record';
import type { FoundRoute } from './routing';

/**
 * Who is calling: the key's user, the key (its scope; its id and name go with every change it makes) and its hash
 * (its rate-limit counter and cache entries use it).
 */
export interface Principal {
  user: membership.User__Output;
  key: CallerKey;
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
  const { user, key: callerKey } = await authenticator.authenticate(key, ahead.keyHash);
  // Every log line and gRPC call from here on names the caller; every change it makes, its key too.
  record.context.userId = user.id;
  if (callerKey.id > 0) record.context.apiKey = { id: callerKey.id, name: callerKey.name };
  return { user, key: callerKey, keyHash: ahead.keyHash ?? apiKeyHash(key) };
}

/**
 * 403 `insufficient-scope` naming what the key lacks, before any project is looked at: the answer depends on the
 * key and the operation alone, so it tells nothing about the project. The scope comes from the operation's
 * declaration (api/operation.ts); a key limited to projects reaches only those, and no operation that would
 * reach another (creating or joining a project).
 */
export function authorizeKey(found: FoundRoute, principal: Principal | undefined): void {
  const needed = found.route.scope;
  if (!needed || !principal) return;
  const { scope } = principal.key;
  const missing = missingScope(scope, needed);
  if (missing) throw insufficientScope(missing, `This API key lacks the scope '${missing}'.`);
  const projectId = found.params.projectId;
  if (typeof projectId === 'number') {
    if (!reachesProject(scope, projectId)) {
      throw insufficientScope(
        `project:${projectId}`,
        `This API key is limited to other projects (${scope.projects?.join(', ')}).`,
      );
    }
  } else if (found.route.reachesNewProject && !reachesEveryProject(scope)) {
    throw insufficientScope(
      `${scopeName(needed)} on every project`,
      'This API key is limited to some projects, so it cannot create or join another.',
    );
  }
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
