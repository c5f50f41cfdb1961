import { DomainError } from '@flowboard/service-kit';
import { accountDto, signedUpUserDto, userDto } from '@flowboard/representation';
import type { Call } from '../call';
import { optionalString, requiredString } from '../../wire/fields';
import { resource, type Reply } from '../../wire/respond';
import type { RouteDeps } from './deps';
import { ownedStoryRefs } from './me-stories.routes';
import { get, post, put, resourceOperations } from '../operation';
import { V1 } from './paths';

/** Sign-up (`POST /api/v1/users`, no key) and the current user (`/api/v1/me`). */
export function userHandlers({ membership, files, apiKeys, boards, users }: RouteDeps) {
  return {
    /**
     * Body `{name?, userName|username, email}` → the full record plus the first API key (docs/compat.md §6).
     */
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

    /** `GET /me`; `with=stories` adds `{id, text}` of every story the caller owns (docs/compat.md §5.1). */
    async me(call: Call): Promise<Reply> {
      const enrich = call.enrichments({ names: ['stories'] });
      const [{ user }, stories] = await Promise.all([
        membership.getCurrentUser({}),
        enrich.has('stories') ? ownedStoryRefs({ membership, boards }, call.user.id, call.key) : undefined,
      ]);
      if (!user) throw new DomainError('Internal', 'GetCurrentUser returned no user');
      return resource('user', { ...userDto(user), stories });
    },

    /**
     * `PUT /me`: `name`, `username`/`userName`, `email`, `bio`; a clash → 409 naming the field. The user cached
     * for each of the caller's keys is dropped, so the change shows on the very next request.
     */
    async update(call: Call): Promise<Reply> {
      const fields = (await call.body()).object();
      const name = optionalString(fields, 'name');
      const userName = optionalString(fields, 'userName', 'username');
      const email = optionalString(fields, 'email');
      const bio = optionalString(fields, 'bio');
      call.enrichments({ names: [] });
      const { user, api_key_hashes } = await membership.updateCurrentUser({
        ...(name === undefined ? {} : { name }),
        ...(userName === undefined ? {} : { user_name: userName }),
        ...(email === undefined ? {} : { email }),
        ...(bio === undefined ? {} : { bio }),
      });
      if (!user) throw new DomainError('Internal', 'UpdateCurrentUser returned no user');
      await Promise.all([apiKeys.forget(api_key_hashes), users.forget(user.id)]);
      return resource('user', userDto(user));
    },

    /**
     * `GET /me/account` (a flowboard addition): the caller's account — limits, collaborators (membership) and
     * storage in use (files). The account id is the caller's id, so the two calls run at once.
     */
    async account(call: Call): Promise<Reply> {
      call.enrichments({ names: [] });
      const [{ account }, storage] = await Promise.all([
        membership.getAccount({}),
        files.getStorageUsage({ account_id: call.user.id }),
      ]);
      if (!account) throw new DomainError('Internal', 'GetAccount returned no account');
      return resource('account', accountDto(account, storage));
    },
  };
}

/** This resource's operations, each declared once: the router and the OpenAPI document are built from them. */
export const userOperations = resourceOperations('Users and API keys', 'account', userHandlers, [
  post(`${V1}/users`, 'signUp', 'Sign up', {
    access: 'public',
    body: 'SignUpRequest',
    ok: { one: 'SignedUpUser' },
    errors: [409],
    addition: true,
    description: 'Creates a user and a first API key. 404 when sign-up is switched off.',
    handler: 'signUp',
  }),
  get(`${V1}/me`, 'getMe', 'Get the current user', {
    access: 'key',
    with: 'me',
    ok: { one: 'User' },
    handler: 'me',
  }),
  put(`${V1}/me`, 'updateMe', 'Update the current user', {
    access: 'key',
    with: 'none',
    body: 'MeUpdate',
    ok: { one: 'User' },
    errors: [409],
    handler: 'update',
  }),
  get(`${V1}/me/account`, 'getMyAccount', 'Get my account', {
    access: 'key',
    ok: { one: 'Account' },
    addition: true,
    description: 'The limits and usage of the account holding the projects the caller owns.',
    handler: 'account',
  }),
]);
