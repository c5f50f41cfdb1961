import type { boards, membership } from '@flowboard/proto';
import type { Dto } from './dto';
import { inviteDto } from './invite.dto';
import { phaseDto } from './phase.dto';
import { roleDto } from './role.dto';
import { userRefDto } from './user.dto';

/** The enrichments of a project that were requested; a requested one always appears, even as `[]`. */
export interface ProjectEnrichments {
  details?: boolean;
  members?: membership.User__Output[];
  /** Project metrics (helper 2): always a full object when requested. */
  metrics?: Dto;
  phases?: boards.Phase__Output[];
  roles?: membership.Role__Output[];
  /** Pending invites (Admin only, docs/compat.md §4.3). */
  invites?: membership.Invite__Output[];
}

/** Project: `id, name, description, [details], createTime, owner`, then `members, metrics, phases, roles, invites` when requested. */
export const projectDto = (project: membership.Project__Output, extra: ProjectEnrichments = {}): Dto => ({
  id: project.id,
  name: project.name,
  description: project.description,
  details: extra.details ? project.details : undefined,
  createTime: project.create_time,
  owner: project.owner ? userRefDto(project.owner) : undefined,
  members: extra.members?.map(userRefDto),
  metrics: extra.metrics,
  phases: extra.phases?.map(phaseDto),
  roles: extra.roles?.map(roleDto),
  invites: extra.invites?.map(inviteDto),
});
