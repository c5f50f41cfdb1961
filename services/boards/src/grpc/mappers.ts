import type { boards } from '@flowboard/proto';
import type { CommentRecord, PhaseRecord, StoryRecord, TagRecord, TaskRecord } from '../application/ports';
import { formatOptionalTimestamp, formatTimestamp } from '../domain/timestamp';
import type { StoryHistory } from '../application/batch-get-story-history';
import type { ProjectMetrics, StoryMetrics } from '../domain/story-metrics';

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

// ---- Story history and metrics (helper 2) ----

export const toStoryHistoryMessage = (storyId: number, history: StoryHistory): boards.StoryHistory => ({
  story_id: storyId,
  milestones: (history.milestones ?? []).map((m) => ({
    id: m.id,
    phase: { id: m.phase.id, name: m.phase.name },
    start_time: formatTimestamp(m.start),
    end_time: formatOptionalTimestamp(m.end),
    duration: m.duration,
  })),
  steps: (history.steps ?? []).map((s) => ({
    id: s.id,
    type: s.type,
    start_time: formatTimestamp(s.start),
    end_time: formatOptionalTimestamp(s.end),
    duration: s.duration,
  })),
  metrics: history.metrics ? toStoryMetricsMessage(history.metrics) : undefined,
});

const toStoryMetricsMessage = (metrics: StoryMetrics): boards.StoryMetrics => ({
  create_time: formatTimestamp(metrics.createTime),
  start_time: formatOptionalTimestamp(metrics.startTime),
  finish_time: formatOptionalTimestamp(metrics.finished?.finishTime),
  finished: metrics.finished !== undefined,
  lead_time: metrics.finished?.leadTime ?? 0,
  cycle_time: metrics.finished?.cycleTime ?? 0,
  work_time: metrics.finished?.workTime ?? 0,
  blocked_time: metrics.finished?.blockedTime ?? 0,
  wait_time: metrics.finished?.waitTime ?? 0,
  efficiency: metrics.finished?.efficiency ?? 0,
});

export const toProjectMetricsMessage = (projectId: number, m: ProjectMetrics): boards.ProjectMetrics => ({
  project_id: projectId,
  throughput: m.throughput,
  lead_time: m.leadTime,
  cycle_time: m.cycleTime,
  work_time: m.workTime,
  blocked_time: m.blockedTime,
  wait_time: m.waitTime,
  efficiency: m.efficiency,
});

// ---- Tags (helper 1) ----

export const toTagMessage = (tag: TagRecord): boards.Tag => ({ id: tag.id, name: tag.name });
