import type { membership } from '@flowboard/proto';
import type { Dto } from './dto';
import { userRefDto } from './user.dto';

/** The API's access level names. */
export type AccessName = 'none' | 'read' | 'readwrite' | 'admin';

/** The API's access level name for the proto enum. */
export function accessName(access: membership.Access__Output): AccessName {
  switch (access) {
    case 'ACCESS_READ':
      return 'read';
    case 'ACCESS_READWRITE':
      return 'readwrite';
    case 'ACCESS_ADMIN':
      return 'admin';
    default:
      return 'none';
  }
}

export const roleDto = (role: membership.Role__Output): Dto => ({
  id: role.id,
  name: role.name,
  access: accessName(role.access),
  members: role.members.map(userRefDto),
});
