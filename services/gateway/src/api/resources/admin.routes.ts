import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { DomainError } from '@flowboard/service-kit';
import type { membership } from '@flowboard/proto';
import { accountDto, apiKeyDto, userStatusDto } from '@flowboard/representation';
import type { Call } from '../call';
import { invalidField, optionalInteger, requiredBoolean } from '../../wire/fields';
import { resource, type Reply } from '../../wire/respond';
import type { RouteDeps } from './deps';
import { put, resourceOperations } from '../operation';
import { V1 } from './paths';

const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest();

/**
 * Whether `Authorization: Bearer <token>` carries the operator token. Constant time: both sides are hashed
 * first, so neither the content nor the length of the token leaks through timing.
 */
export function isOperator(headers: IncomingHttpHeaders, token: string): boolean {
  const bearer = /^\s*bearer\s+(\S+)\s*$/i.exec(headers.authorization ?? '');
  // The token is at least 32 characters (config), so a missing bearer ('') can never match.
  return timingSafeEqual(sha256(bearer?.[1] ?? ''), sha256(token));
}

/** Largest limit accepted (exact as a JSON number and as an int64). */
const MAX_LIMIT = Number.MAX_SAFE_INTEGER;

/** A limit in the body: an integer ≥ 0 sets it, null or "" resets it to the default, absent keeps it. */
function limitField(fields: Record<string, unknown>, name: string): number | null | undefined {
  const value = optionalInteger(fields, name);
  if (typeof value === 'number' && (value < 0 || value > MAX_LIMIT))
    throw invalidField(
      `Field '${name}' must be a whole number from 0 to ${MAX_LIMIT}, or null for the default.`,
    );
  return value;
}

/**
 * The operator's endpoints (a flowboard addition). They are public routes as far as API keys go — no key is
 * asked for, and none works — and check the operator token themselves, first. OPERATOR_TOKEN unset: 404, as if
 * the route did not exist.
 */
export function adminHandlers({ membership, files, apiKeys, operatorToken }: RouteDeps) {
  const requireOperator = (call: Call) => {
    if (operatorToken === undefined) throw new DomainError('NotFound', 'No such resource.');
    if (!isOperator(call.req.headers, operatorToken))
      throw new DomainError(
        'Unauthenticated',
        'The admin API needs the operator token as "Authorization: Bearer <token>"; API keys do not work ' +
          'here.',
      );
  };

  return {
    /**
     * `PUT /admin/accounts/{userId}`: `collaboratorLimit` and/or `storageLimitBytes` (null = back to the
     * configured default). Answers the account as `GET /me/account` shows it to its owner. Unknown user → 404.
     */
    async updateAccount(call: Call): Promise<Reply> {
      requireOperator(call);
      const userId = call.id('userId');
      const fields = (await call.body()).object();
      const collaboratorLimit = limitField(fields, 'collaboratorLimit');
      const storageLimitBytes = limitField(fields, 'storageLimitBytes');
      if (collaboratorLimit === undefined && storageLimitBytes === undefined)
        throw invalidField("Give 'collaboratorLimit' and/or 'storageLimitBytes'.");
      call.enrichments({ names: [] });
      const request: membership.UpdateAccountRequest = {
        user_id: userId,
        ...(collaboratorLimit === null ? { reset_collaborator_limit: true } : {}),
        ...(typeof collaboratorLimit === 'number' ? { collaborator_limit: collaboratorLimit } : {}),
        ...(storageLimitBytes === null ? { reset_storage_limit: true } : {}),
        ...(typeof storageLimitBytes === 'number' ? { storage_limit_bytes: storageLimitBytes } : {}),
      };
      // Both at once, but membership decides whether the user exists (404): files refuses an id it could never
      // hold (0) with a 400, and which of the two failed first must not choose the answer.
      const [updated, storage] = await Promise.allSettled([
        membership.updateAccount(request),
        files.getStorageUsage({ account_id: userId }),
      ]);
      if (updated.status === 'rejected') throw updated.reason;
      if (storage.status === 'rejected') throw storage.reason;
      const { account } = updated.value;
      if (!account) throw new DomainError('Internal', 'UpdateAccount returned no account');
      return resource('account', accountDto(account, storage.value));
    },

    /**
     * `PUT /admin/users/{userId}`: `{enabled}` disables or enables a user — a disabled user's keys are all 401.
     * Every key's cached verification goes before we answer, so the change holds from the very next request.
     * Answers the full user record plus `enabled`. Unknown user → 404.
     */
    async updateUser(call: Call): Promise<Reply> {
      requireOperator(call);
      const userId = call.id('userId');
      const enabled = requiredBoolean((await call.body()).object(), 'enabled');
      call.enrichments({ names: [] });
      const {
        user,
        enabled: now,
        api_key_hashes,
      } = await membership.setUserEnabled({ user_id: userId, enabled });
      if (!user) throw new DomainError('Internal', 'SetUserEnabled returned no user');
      await apiKeys.forget(api_key_hashes);
      return resource('user', userStatusDto(user, now));
    },

    /**
     * `PUT /admin/users/{userId}/apikeys/{keyId}`: `{enabled}` disables or enables one key (its cached
     * verification goes first, as for a deleted key). Answers the key as `GET /me/apikeys` shows it. A key of
     * another user → 404.
     */
    async updateApiKey(call: Call): Promise<Reply> {
      requireOperator(call);
      const userId = call.id('userId');
      const keyId = call.id('keyId');
      const enabled = requiredBoolean((await call.body()).object(), 'enabled');
      call.enrichments({ names: [] });
      const { api_key, key_hash } = await membership.setApiKeyEnabled({
        user_id: userId,
        api_key_id: keyId,
        enabled,
      });
      if (!api_key) throw new DomainError('Internal', 'SetApiKeyEnabled returned no key');
      await apiKeys.forget([key_hash]);
      return resource('apiKey', apiKeyDto(api_key));
    },
  };
}

/**
 * This resource's operations, each declared once: the router and the OpenAPI document are built from them.
 * `operator` access: the operator token, not an API key; the handlers check it (404 when OPERATOR_TOKEN is unset).
 */
export const adminOperations = resourceOperations('Operator', 'any', adminHandlers, [
  put(`${V1}/admin/accounts/:userId`, 'updateAccount', "Set an account's limits", {
    access: 'operator',
    body: 'AccountLimits',
    ok: { one: 'Account' },
    addition: true,
    description: 'Overrides the configured default limits of the account of `userId`; `null` resets one.',
    handler: 'updateAccount',
  }),
  put(`${V1}/admin/users/:userId`, 'setUserEnabled', 'Disable or enable a user', {
    access: 'operator',
    body: 'UserEnabled',
    ok: { one: 'UserStatus' },
    addition: true,
    description:
      '`enabled: false`: every API key of the user is refused (401) from the very next request, the ' +
      "keys' own state unchanged; `true` makes them work again at once. Answers the full user record " +
      'plus `enabled`.',
    handler: 'updateUser',
  }),
  put(`${V1}/admin/users/:userId/apikeys/:keyId`, 'setUserApiKeyEnabled', 'Disable or enable an API key', {
    access: 'operator',
    body: 'ApiKeyEnabled',
    ok: { one: 'ApiKey' },
    addition: true,
    description:
      "A disabled key is refused (401) from the very next request; the user's other keys keep working. " +
      'A key of another user is 404. Answers the key as `GET /me/apikeys` shows it.',
    handler: 'updateApiKey',
  }),
]);
