import type { RequestHandler } from 'express';
import { DomainError } from '@flowboard/service-kit';
import { allows } from '../authz/access';
import type { ProjectAccessResolver } from '../authz/project-access';
import { stateOf } from './state';

/**
 * Project routes (`P...`) declare the access they need; the caller's access comes from membership (cached).
 * Not a member or no such project → 404 (existence is never revealed); a lower level → 403.
 */
export function authorize(resolver: ProjectAccessResolver): RequestHandler {
  return async (req, _res, next) => {
    const state = stateOf(req);
    const match = state.match;
    if (match?.kind !== 'found' || !match.route.access) return next();
    const projectId = match.params.projectId;
    if (typeof projectId !== 'number' || !state.user) {
      throw new Error(`route ${match.route.pattern} declares access but has no :projectId or no caller`);
    }
    const access = await resolver.resolve(projectId, state.user.id);
    if (!allows(access.access, match.route.access)) {
      throw new DomainError('PermissionDenied', `This needs ${match.route.access} access to the project.`);
    }
    state.project = access;
    next();
  };
}
