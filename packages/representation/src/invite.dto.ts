import type { membership } from '@flowboard/proto';
import type { Dto } from './dto';
import { userRefDto } from './user.dto';

export const inviteDto = (invite: membership.Invite__Output): Dto => ({
  id: invite.id,
  createTime: invite.create_time,
  email: invite.email,
  token: invite.token,
  sender: invite.sender ? userRefDto(invite.sender) : undefined,
  role: invite.role ? { id: invite.role.id, name: invite.role.name } : undefined,
});
