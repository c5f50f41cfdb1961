import type { membership } from '@flowboard/proto';
import type { MembershipClient } from './membership.client';

export type UsersById = ReadonlyMap<number, membership.User__Output>;

/**
 * Every user a response refers to (creator, owner, author...) in ONE `BatchGetUsers` call; 0 (nobody) and
 * duplicates are dropped, and no call is made when nothing is left.
 */
export async function resolveUsers(membership: MembershipClient, ids: Iterable<number>): Promise<UsersById> {
  const wanted = [...new Set([...ids].filter((id) => id > 0))];
  if (wanted.length === 0) return new Map();
  const { users } = await membership.batchGetUsers(wanted);
  return new Map(users.map((u) => [u.id, u]));
}
