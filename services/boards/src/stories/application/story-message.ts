import type { boards } from '@flowboard/proto';
import { formatOptionalTimestamp, formatTimestamp } from '../../shared/domain/timestamp';
import type { StoryRecord } from './ports';

/**
 * StoryRecord → Story message, for every service that answers stories (stories, a phase's stories, a tag's
 * stories) and for the story's change events, whose resource is the story as this API answers it (so it lives
 * beside the use cases, which write the events). Unset optional values become the proto3 defaults the contract
 * documents.
 */
export const toStoryMessage = (story: StoryRecord): boards.Story => ({
  project_id: story.projectId,
  id: story.id,
  text: story.text,
  details: story.details,
  size: story.size,
  priority: story.priority,
  color: story.color,
  deadline: formatOptionalTimestamp(story.deadline),
  status: story.status,
  blocked_reason: story.blockedReason ?? '',
  phase: { id: story.phase.id, name: story.phase.name },
  creator_id: story.creatorId,
  owner_id: story.ownerId ?? 0,
  create_time: formatTimestamp(story.createdAt),
  version: story.version,
});
