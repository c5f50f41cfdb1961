import type { UsersById } from '@flowboard/representation';
import type { NameLookup } from './render';

export interface RecentNamesOptions {
  /** How long an answer is reused. */
  ttlMs: number;
  /** Projects remembered at most (the least recently looked up are forgotten first). */
  maxProjects: number;
  now?: () => number;
}

interface Remembered {
  projectName: string;
  users: UsersById;
  at: number;
}

/** More users than this in one project's entry: the next miss starts it afresh rather than growing it. */
const MAX_USERS_PER_PROJECT = 1_000;

/**
 * Names looked up in the last `ttlMs`, reused: the feed renders every change of a busy project with the same few
 * names, and asking membership for them once per project per batch was most of its delay (docs/benchmarks.md, "The
 * change stream"). A name changed meanwhile shows in the stream's payloads `ttlMs` later at most; webhooks, which
 * look names up when they deliver (often later), may show the newer one.
 *
 * A lookup that needs a user the project's entry lacks asks for that user and every one the entry holds, so the
 * entry grows with the project's active users and is as fresh as its newest lookup.
 */
export function recentNames(lookup: NameLookup, options: RecentNamesOptions): NameLookup {
  const now = options.now ?? Date.now;
  const remembered = new Map<number, Remembered>();
  return {
    async resolve(projectId, userIds) {
      const at = now();
      const entry = remembered.get(projectId);
      const fresh = entry && at - entry.at < options.ttlMs ? entry : undefined;
      if (fresh && userIds.every((id) => fresh.users.has(id))) {
        remembered.delete(projectId); // re-inserted last: the Map's order is the order of use
        remembered.set(projectId, fresh);
        return { projectName: fresh.projectName, users: fresh.users };
      }
      const known = fresh && fresh.users.size < MAX_USERS_PER_PROJECT ? [...fresh.users.keys()] : [];
      const answer = await lookup.resolve(projectId, [...new Set([...known, ...userIds])]);
      remembered.delete(projectId);
      remembered.set(projectId, { ...answer, at });
      if (remembered.size > options.maxProjects) remembered.delete(remembered.keys().next().value!);
      return answer;
    },
  };
}
