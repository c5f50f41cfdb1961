import { DomainError } from '@flowboard/service-kit';
import { signedUpUserDto, userDto } from '../../representation/user.dto';
import type { Call } from '../call';
import { optionalString, requiredString } from '../fields';
import { resource, type Reply } from '../respond';
import type { RouteDeps } from './deps';

/** Sign-up (`POST /api/v1/users`, no key) and the current user (`/api/v1/me`). */
export function userHandlers({ membership }: RouteDeps) {
  return {
    /** Body `{name?, userName|username, email}` → the full record plus the first API key (api-compat §6). */
    async signUp(call: Call): Promise<Reply> {
      const fields = (await call.body()).object();
      const { user, api_key } = await membership.signUp({
        name: optionalString(fields, 'name') ?? '',
        user_name: requiredString(fields, 'userName', 'username'),
        email: requiredString(fields, 'email'),
      });
      if (!user) throw new DomainError('Internal', 'SignUp returned no user');
      return resource('user', signedUpUserDto(user, api_key));
    },

    // TODO(me-stories): `with=stories` once boards can list a user's stories; until then only `everything`.
    async me(call: Call): Promise<Reply> {
      call.enrichments({ names: [] });
      const { user } = await membership.getCurrentUser();
      if (!user) throw new DomainError('Internal', 'GetCurrentUser returned no user');
      return resource('user', userDto(user));
    },
  };
}
