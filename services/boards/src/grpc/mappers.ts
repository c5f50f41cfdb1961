import type { boards } from '@flowboard/proto';
import type { CommentRecord, PhaseRecord, StoryRecord, TaskRecord } from '../application/ports';
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

export const toTaskMessage = (task: TaskRecord): boards.Task => ({
  id: task.id,
  text: task.text,
  status: task.status,
  create_time: formatTimestamp(task.createdAt),
  finish_time: formatOptionalTimestamp(task.finishedAt),
  finished_by: task.finishedBy ?? 0,
});

export const toCommentMessage = (comment: CommentRecord): boards.Comment => ({
  id: comment.id,
  text: comment.text,
  create_time: formatTimestamp(comment.createdAt),
  author_id: comment.authorId,
});
