/**
 * What an API key may do beyond what its user may (README "Scoped API keys"). A key is read-only or read-write,
 * optionally limited to some projects and to some groups of operations; the key every account has had since
 * sign-up is read-write on everything, so it acts exactly as its user. Each operation declares the scope it needs
 * (api/operation.ts), so the router, the OpenAPI document, the MCP tools and this check read one declaration.
 */

/** The groups of operations a key may be limited to. */
export const SCOPE_GROUPS = ['stories', 'comments', 'attachments', 'administration', 'account'] as const;
export type ScopeGroup = (typeof SCOPE_GROUPS)[number];

/** What the groups cover, for the key endpoints' errors, the OpenAPI document and the README. */
export const SCOPE_GROUP_DESCRIPTIONS: Readonly<Record<ScopeGroup, string>> = {
  stories: 'the board: stories, phases, tags, tasks, my stories and the change stream',
  comments: "stories' comments",
  attachments: "stories' attachments",
  administration: 'projects, members, roles, invites and webhooks (creating and changing them)',
  account: 'the user: /me, its API keys and account, accepting invites',
};

/**
 * The scope an operation needs: its group (`any`: every key may, e.g. reading the projects it reaches and their
 * members, which everything else hangs off) and whether it changes anything.
 */
export interface OperationScope {
  group: ScopeGroup | 'any';
  write: boolean;
}

/** What a key may do. `projects` and `groups` absent: no limit. */
export interface KeyScope {
  write: boolean;
  projects?: readonly number[];
  groups?: readonly ScopeGroup[];
}

/** The key every account has had since sign-up: no limit beyond its user's access. */
export const FULL_SCOPE: KeyScope = { write: true };

/** `stories:write`, `any:read`: how a needed scope is named in a refusal and in the document. */
export const scopeName = (scope: OperationScope): string =>
  `${scope.group}:${scope.write ? 'write' : 'read'}`;

/** Whether a key of `key` scope may run an operation needing `needed` (projects aside: see `projectRefusal`). */
export function permits(key: KeyScope, needed: OperationScope): boolean {
  if (needed.write && !key.write) return false;
  if (needed.group === 'any' || !key.groups) return true;
  return key.groups.includes(needed.group);
}

/** The scope missing for this operation, named; undefined when the key may. */
export function missingScope(key: KeyScope, needed: OperationScope): string | undefined {
  return permits(key, needed) ? undefined : scopeName(needed);
}

/** Whether a key may reach this project at all. */
export const reachesProject = (key: KeyScope, projectId: number): boolean =>
  !key.projects || key.projects.includes(projectId);

/** Whether a key reaches every project its user does (it may create or join one). */
export const reachesEveryProject = (key: KeyScope): boolean => !key.projects;

/**
 * Whether a key of scope `wanted` gives no more than `holder` does: a key can only make keys that can do less
 * (or as much), so a scoped key handed to an agent cannot mint itself a wider one.
 */
export function withinScope(wanted: KeyScope, holder: KeyScope): boolean {
  if (wanted.write && !holder.write) return false;
  if (holder.projects && (!wanted.projects || wanted.projects.some((p) => !holder.projects?.includes(p))))
    return false;
  if (holder.groups && (!wanted.groups || wanted.groups.some((g) => !holder.groups?.includes(g))))
    return false;
  return true;
}
