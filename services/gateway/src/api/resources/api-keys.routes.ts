import { DomainError } from '@flowboard/service-kit';
import { apiKeyDto } from '@flowboard/representation';
import { apiTime, type CallerKey } from '../../authz/api-keys';
import { SCOPE_GROUPS, withinScope, type KeyScope, type ScopeGroup } from '../../authz/scopes';
import { insufficientScope } from '../../authz/scope-problem';
import type { Fields } from '../../wire/body';
import { pageOf } from '../../wire/page';
import { invalidField, optionalString } from '../../wire/fields';
import { empty, page, resource, type Reply } from '../../wire/respond';
import type { Call } from '../call';
import { del, get, post, resourceOperations } from '../operation';
import type { RouteDeps } from './deps';
import { V1 } from './paths';

/**
 * The caller's API keys (`/me/apikeys`, docs/compat.md §6; README "Scoped API keys"): list, create (named,
 * expiring, read-only, limited to projects and groups of operations; never more than the key asking), see the key
 * in use, revoke.
 */
export function apiKeyHandlers({ membership, apiKeys }: RouteDeps) {
  return {
    /** `GET /me/apikeys`: every key of the caller, id order, never the key itself. */
    async list(call: Call): Promise<Reply> {
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

    /** `GET /me/apikeys/current`: the key this request came with, so a client (an agent) can see its own scope. */
    async current(call: Call): Promise<Reply> {
      call.enrichments({ names: [] });
      // Vouched for by a membership older than scoped keys, which does not say which key it is (a rollback).
      if (call.key.id === 0) throw new DomainError('NotFound', 'This key has no record of its own here yet.');
      const { api_keys } = await membership.listApiKeys({});
      const own = api_keys.find((k) => Number(k.id) === call.key.id);
      // Deleted between authentication and this read: as good as unknown.
      if (!own) throw new DomainError('Unauthenticated', 'The API key is not valid.');
      return resource('apiKey', apiKeyDto(own));
    },

    /**
     * `POST /me/apikeys`: a new key; the full `key` appears in this response only. Without a body, a key like the
     * one from sign-up (read-write on everything, never expiring), as before scopes existed; a key can only make
     * keys that do no more than it does and expire no later.
     */
    async create(call: Call): Promise<Reply> {
      call.enrichments({ names: [] });
      const request = parseKeyRequest((await call.body()).object());
      checkWithinCallerKey(request, call.key);
      const { api_key, key } = await membership.createApiKey({
        name: request.name,
        expire_time: request.expiresAt ?? '',
        read_only: !request.scope.write,
        project_ids: [...(request.scope.projects ?? [])],
        groups: [...(request.scope.groups ?? [])],
      });
      if (!api_key) throw new DomainError('Internal', 'CreateApiKey returned no key');
      return resource('apiKey', apiKeyDto(api_key, key));
    },

    /** `DELETE /me/apikeys/{id}`: revoked at once — the key's cached verification goes before we answer. */
    async delete(call: Call): Promise<Reply> {
      const { key_hash } = await membership.deleteApiKey({ api_key_id: call.id('keyId') });
      await apiKeys.forget([key_hash]);
      return empty();
    },
  };
}

interface KeyRequest {
  name: string;
  /** As sent (membership checks it is a time in the future). */
  expiresAt?: string;
  scope: KeyScope;
}

const ACCESS_VALUES = ['read', 'readwrite'] as const;

/** The body of `POST /me/apikeys`; every field optional (docs in the ApiKeyCreate schema). */
function parseKeyRequest(fields: Fields): KeyRequest {
  const access = optionalString(fields, 'access')?.trim().toLowerCase() ?? 'readwrite';
  if (!(ACCESS_VALUES as readonly string[]).includes(access)) {
    throw invalidField("Field 'access' must be 'read' or 'readwrite'.");
  }
  const expiresAt = optionalString(fields, 'expiresAt')?.trim();
  const projects = listField(fields, 'projects', projectId);
  const groups = listField(fields, 'groups', scopeGroup);
  return {
    name: optionalString(fields, 'name') ?? '',
    ...(expiresAt ? { expiresAt } : {}),
    scope: {
      write: access === 'readwrite',
      ...(projects ? { projects } : {}),
      ...(groups ? { groups } : {}),
    },
  };
}

/** An array field; absent or null = no limit; an empty array limits to nothing, which no key is for: 400. */
function listField<T>(
  fields: Fields,
  name: string,
  item: (value: unknown) => T | undefined,
): T[] | undefined {
  const value = fields[name];
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || value.length === 0) {
    throw invalidField(`Field '${name}' must be a non-empty array, or left out for no limit.`);
  }
  return value.map((v) => {
    const parsed = item(v);
    if (parsed === undefined)
      throw invalidField(`Field '${name}' holds ${JSON.stringify(v)}, ${WHAT[name]}.`);
    return parsed;
  });
}

const WHAT: Record<string, string> = {
  projects: 'which is no project id',
  groups: `which is none of ${SCOPE_GROUPS.join(', ')}`,
};

function projectId(value: unknown): number | undefined {
  const raw = typeof value === 'object' && value !== null ? (value as Fields).id : value;
  const id = typeof raw === 'string' && /^\s*\d{1,15}\s*$/.test(raw) ? Number(raw) : raw;
  return typeof id === 'number' && Number.isSafeInteger(id) && id > 0 ? id : undefined;
}

function scopeGroup(value: unknown): ScopeGroup | undefined {
  const name = typeof value === 'string' ? value.trim().toLowerCase() : undefined;
  return SCOPE_GROUPS.find((group) => group === name);
}

/** 403 unless the new key can do no more than the key asking for it, and expires no later. */
function checkWithinCallerKey(request: KeyRequest, caller: CallerKey): void {
  if (!withinScope(request.scope, caller.scope)) {
    throw insufficientScope(
      'a key within this one',
      'A key can only make keys that can do no more than it can: the same access or less, among its projects ' +
        'and groups (GET /api/v1/me/apikeys/current shows them).',
    );
  }
  if (caller.expiresAt && (!request.expiresAt || apiTime(request.expiresAt) > apiTime(caller.expiresAt))) {
    throw insufficientScope(
      'a key within this one',
      `This key expires at ${caller.expiresAt}; a key it makes must expire no later ('expiresAt').`,
    );
  }
}

/** This resource's operations, each declared once: the router and the OpenAPI document are built from them. */
export const apiKeyOperations = resourceOperations('Users and API keys', 'account', apiKeyHandlers, [
  get(`${V1}/me/apikeys`, 'listApiKeys', 'List my API keys', {
    cursor: true,
    access: 'key',
    ok: { page: 'ApiKey' },
    addition: true,
    description:
      'Every key of the caller, with what it may do and when it was last used; never the key itself.',
    handler: 'list',
  }),
  post(`${V1}/me/apikeys`, 'createApiKey', 'Create an API key', {
    access: 'key',
    body: 'ApiKeyCreate',
    ok: { one: 'ApiKey' },
    addition: true,
    description:
      'The full `key` is in this response only. Without a body: a key that can do all its user can, as before ' +
      'scopes. A key can make only keys that can do no more than it can and expire no later (403 ' +
      '`insufficient-scope` otherwise).',
    handler: 'create',
  }),
  get(`${V1}/me/apikeys/current`, 'getCurrentApiKey', 'Get the API key in use', {
    access: 'key',
    group: 'any',
    ok: { one: 'ApiKey' },
    addition: true,
    description: 'The key this request came with: its name, expiry and what it may do. Any key may read it.',
    handler: 'current',
  }),
  del(`${V1}/me/apikeys/:keyId`, 'deleteApiKey', 'Revoke an API key', {
    access: 'key',
    ok: 'empty',
    addition: true,
    description: 'At once: the key is refused (401) from the next request on, on every gateway.',
    handler: 'delete',
  }),
]);
