import { DomainError } from '@flowboard/service-kit';
import { accountDto } from '../../representation/account.dto';
import { apiKeyDto } from '../../representation/api-key.dto';
import { pageOf } from '../../representation/page';
import { signedUpUserDto, userDto } from '../../representation/user.dto';
import type { Call } from '../call';
import { optionalString, requiredString } from '../fields';
import { empty, page, resource, type Reply } from '../respond';
import type { RouteDeps } from './deps';
import { ownedStoryRefs } from './me-stories.routes';

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
        enrich.has('stories') ? ownedStoryRefs({ membership, boards }, call.user.id) : undefined,
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

    /** `GET /me/apikeys` (docs/compat.md §6): `{id, createTime, enabled, hint}` each, id order. */
    async listApiKeys(call: Call): Promise<Reply> {
      call.enrichments({ names: [] });
      const paging = call.paging();
      const { api_keys } = await membership.listApiKeys({});
      return page(
        'apiKey',
        pageOf(
          api_keys.map((k) => apiKeyDto(k)),
          paging,
        ),
      );
    },

    /** `POST /me/apikeys`: a new key; the full `key` appears in this response only. */
    async createApiKey(call: Call): Promise<Reply> {
      call.enrichments({ names: [] });
      const { api_key, key } = await membership.createApiKey({});
      if (!api_key) throw new DomainError('Internal', 'CreateApiKey returned no key');
      return resource('apiKey', apiKeyDto(api_key, key));
    },

    /** `DELETE /me/apikeys/{id}`: immediate — the key's cached verification goes before we answer. */
    async deleteApiKey(call: Call): Promise<Reply> {
      const { key_hash } = await membership.deleteApiKey({ api_key_id: call.id('keyId') });
      await apiKeys.forget([key_hash]);
      return empty();
    },
  };
}
