import type { boards, membership } from '@flowboard/proto';
import type { Dto } from './dto';
import { phaseDto } from './phase.dto';
import { roleDto } from './role.dto';
import { userRefDto } from './user.dto';

/** The enrichments of a project that were requested; a requested one always appears, even as `[]`. */
export interface ProjectEnrichments {
  details?: boolean;
  members?: membership.User__Output[];
  phases?: boards.Phase__Output[];
  roles?: membership.Role__Output[];
}

/** Project: `id, name, description, [details], createTime, owner`, then `members, phases, roles` when requested. */
export const projectDto = (project: membership.Project__Output, extra: ProjectEnrichments = {}): Dto => ({
  id: project.id,
  name: project.name,
  description: project.description,
  details: extra.details ? project.details : undefined,
  createTime: project.create_time,
  owner: project.owner ? userRefDto(project.owner) : undefined,
  members: extra.members?.map(userRefDto),
  phases: extra.phases?.map(phaseDto),
  roles: extra.roles?.map(roleDto),
});
