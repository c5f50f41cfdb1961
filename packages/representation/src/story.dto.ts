import type { boards } from '@flowboard/proto';
import type { Dto } from './dto';
import { embeddedUser, type UsersById } from './user.dto';

export interface StoryView {
  /** From the access check, which already knows the project's name. */
  project: { id: number; name: string };
  /** Creator and owner, resolved in one batch per response. */
  users: UsersById;
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
    creator: embeddedUser(story.creator_id, view.users),
    owner: story.owner_id ? embeddedUser(story.owner_id, view.users) : undefined,
  };
}

/** The user ids a set of stories refers to, for one `resolveUsers` call. */
export const storyUserIds = (stories: boards.Story__Output[]): number[] =>
  stories.flatMap((s) => [s.creator_id, s.owner_id]);
