import type { membership } from '@flowboard/proto';
import type { Dto } from './dto';

type User = membership.User__Output;

/** Users by id, as one batch lookup per response returns them. */
export type UsersById = ReadonlyMap<number, User>;

/**
 * An embedded user (creator, owner, sender, members...): exactly `{id, name, userName, email}`
 * (docs/compat.md §5.1).
 */
export const userRefDto = (user: User): Dto => ({
  id: user.id,
  name: user.name,
  userName: user.user_name,
  email: user.email,
});

/** The full record (`/me`, sign-up, member pages) adds `bio` and `createTime`. */
export const userDto = (user: User): Dto => ({
  ...userRefDto(user),
  bio: user.bio,
  createTime: user.create_time,
});

/** The operator's view (`PUT /admin/users/{userId}`, a flowboard addition): the full record plus `enabled`. */
export const userStatusDto = (user: User, enabled: boolean): Dto => ({ ...userDto(user), enabled });

/** Sign-up answers the full record plus the first API key, last. */
export const signedUpUserDto = (user: User, apiKey: string): Dto => ({ ...userDto(user), apiKey });

/** A user the batch did not return (deleted since) keeps its id, so the shape stays stable. */
export const embeddedUser = (id: number, users: UsersById): Dto => {
  const user = users.get(id);
  return user ? userRefDto(user) : { id, name: '', userName: '', email: '' };
};
