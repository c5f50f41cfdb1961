import { isAccessLevel, type AccessLevel } from '../domain/access';
import type { ApiKey, Invite, Project, Role, User } from '../application/ports';

/** Column lists and row → record mapping, shared by the repositories. */
export const USER_COLUMNS = 'u.id, u.name, u.user_name, u.email, u.bio, u.created_at';

export interface UserRow {
  id: number;
  name: string;
  user_name: string;
  email: string;
  bio: string;
  created_at: Date;
}

export const toUser = (r: UserRow): User => ({
  id: r.id,
  name: r.name,
  userName: r.user_name,
  email: r.email,
  bio: r.bio,
  createdAt: r.created_at,
});

export const PROJECT_COLUMNS = 'p.id, p.name, p.description, p.details, p.owner_id, p.created_at, p.version';

export interface ProjectRow {
  id: number;
  name: string;
  description: string;
  details: string;
  owner_id: number;
  created_at: Date;
  version: number;
}

export const toProject = (r: ProjectRow): Project => ({
  id: r.id,
  name: r.name,
  description: r.description,
  details: r.details,
  ownerId: r.owner_id,
  createdAt: r.created_at,
  version: r.version,
});

export const ROLE_COLUMNS = 'id, project_id, name, access, version';

export interface RoleRow {
  id: number;
  project_id: number;
  name: string;
  access: string;
  version: number;
}

export function toAccess(value: string): AccessLevel {
  // The column has a CHECK constraint; anything else means the schema and the code disagree.
  if (!isAccessLevel(value)) throw new Error(`unexpected access level in the database: ${value}`);
  return value;
}

export const toRole = (r: RoleRow): Role => ({
  id: r.id,
  projectId: r.project_id,
  name: r.name,
  access: toAccess(r.access),
  version: r.version,
});

export const INVITE_COLUMNS = 'id, project_id, role_id, email, token, sender_id, created_at, expires_at';

export interface InviteRow {
  id: number;
  project_id: number;
  role_id: number;
  email: string;
  token: string;
  sender_id: number;
  created_at: Date;
  expires_at: Date;
}

export const toInvite = (r: InviteRow): Invite => ({
  id: r.id,
  projectId: r.project_id,
  roleId: r.role_id,
  email: r.email,
  token: r.token,
  senderId: r.sender_id,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
});

const API_KEY_FIELDS = [
  'id',
  'user_id',
  'hint',
  'enabled', // the key's state whichever column holds it (migration 0006: a key with limits keeps it apart)
  'created_at',
  'name',
  'expires_at',
  'read_only',
  'project_ids',
  'scope_groups',
  'last_used_at',
] as const;
/** Whether a key is enabled: a key with limits keeps its state apart from `enabled`, which older releases read. */
export const KEY_ENABLED = 'COALESCE(k.enabled_with_limits, k.enabled)';
const column = (field: (typeof API_KEY_FIELDS)[number]) => (field === 'enabled' ? KEY_ENABLED : `k.${field}`);
export const API_KEY_COLUMNS = API_KEY_FIELDS.map((f) => `${column(f)} AS ${f}`).join(', ');
/** The key's columns beside another table's (a user's): each prefixed `key_`, read back by `toPrefixedApiKey`. */
export const PREFIXED_API_KEY_COLUMNS = API_KEY_FIELDS.map((f) => `${column(f)} AS key_${f}`).join(', ');

export interface ApiKeyRow {
  id: number;
  user_id: number;
  hint: string;
  enabled: boolean;
  created_at: Date;
  name: string;
  expires_at: Date | null;
  read_only: boolean;
  /** bigint[]: node-postgres hands the elements over as strings. */
  project_ids: string[] | null;
  scope_groups: string[] | null;
  last_used_at: Date | null;
}

export const toApiKey = (r: ApiKeyRow): ApiKey => ({
  id: r.id,
  userId: r.user_id,
  hint: r.hint,
  enabled: r.enabled,
  createdAt: r.created_at,
  name: r.name,
  readOnly: r.read_only,
  ...(r.expires_at ? { expiresAt: r.expires_at } : {}),
  ...(r.project_ids ? { projectIds: r.project_ids.map(Number) } : {}),
  ...(r.scope_groups ? { groups: r.scope_groups } : {}),
  ...(r.last_used_at ? { lastUsedAt: r.last_used_at } : {}),
});

export const toPrefixedApiKey = (r: Record<string, unknown>): ApiKey =>
  toApiKey(Object.fromEntries(API_KEY_FIELDS.map((f) => [f, r[`key_${f}`]])) as unknown as ApiKeyRow);
