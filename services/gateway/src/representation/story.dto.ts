import type { boards, membership } from '@flowboard/proto';
import type { Dto } from './dto';
import { userRefDto } from './user.dto';

export interface StoryView {
  /** From the access check, which already knows the project's name. */
  project: { id: number; name: string };
  /** Creator and owner, resolved in one batch per response. */
  users: ReadonlyMap<number, membership.User__Output>;
  details: boolean;
}

/**
 * Story in the original key order (docs/compat.md §2):
 * `id, text, details, size, color, priority, deadline, status, blockedReason, project, phase, creator,
 * owner`. `details` only when requested, `deadline` when set, `blockedReason` while blocked, `owner` when
 * assigned (§5.3).
 */
export function storyDto(story: boards.Story__Output, view: StoryView): Dto {
  return {
    id: story.id,
    text: story.text,
    details: view.details ? story.details : undefined,
    size: story.size,
    color: story.color,
    priority: story.priority,
    deadline: story.deadline || undefined,
    status: story.status,
    blockedReason: story.status === 'blocked' ? story.blocked_reason : undefined,
    project: { id: view.project.id, name: view.project.name },
    phase: story.phase ? { id: story.phase.id, name: story.phase.name } : undefined,
    creator: userRef(story.creator_id, view.users),
    owner: story.owner_id ? userRef(story.owner_id, view.users) : undefined,
  };
}

/** A user the batch did not return (deleted since) keeps its id, so the shape stays stable. */
function userRef(id: number, users: ReadonlyMap<number, membership.User__Output>): Dto {
  const user = users.get(id);
  return user ? userRefDto(user) : { id, name: '', userName: '', email: '' };
}

/** The user ids a set of stories refers to, for one `resolveUsers` call. */
export const storyUserIds = (stories: boards.Story__Output[]): number[] =>
  stories.flatMap((s) => [s.creator_id, s.owner_id]);
