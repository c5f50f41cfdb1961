import type { boards } from '@flowboard/proto';
import type { PhaseRecord, StoryRecord } from '../application/ports';
import { formatOptionalTimestamp, formatTimestamp } from '../domain/timestamp';

/** Records → gRPC messages. Unset optional values become the proto3 defaults the contract documents. */

export const toPhaseMessage = (phase: PhaseRecord): boards.Phase => ({
  id: phase.id,
  name: phase.name,
  description: phase.description,
  index: phase.position,
  limit: phase.wipLimit ?? 0,
});

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
});
