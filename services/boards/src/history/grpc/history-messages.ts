import type { boards } from '@flowboard/proto';
import { formatOptionalTimestamp, formatTimestamp } from '../../shared/domain/timestamp';
import type { StoryHistory } from '../application/batch-get-story-history';
import type { ChangeAuthor } from '../application/ports';
import type { ProjectMetrics, StoryMetrics } from '../domain/story-metrics';

/** History and metrics → messages. Open rows and unfinished stories carry the proto3 defaults ("" and 0). */

export const toStoryHistoryMessage = (storyId: number, history: StoryHistory): boards.StoryHistory => ({
  story_id: storyId,
  milestones: (history.milestones ?? []).map((m) => ({
    id: m.id,
    phase: { id: m.phase.id, name: m.phase.name },
    start_time: formatTimestamp(m.start),
    end_time: formatOptionalTimestamp(m.end),
    duration: m.duration,
    author: authorMessage(m.author),
  })),
  steps: (history.steps ?? []).map((s) => ({
    id: s.id,
    type: s.type,
    start_time: formatTimestamp(s.start),
    end_time: formatOptionalTimestamp(s.end),
    duration: s.duration,
    author: authorMessage(s.author),
  })),
  metrics: history.metrics ? toStoryMetricsMessage(history.metrics) : undefined,
});

const authorMessage = (author: ChangeAuthor | undefined): boards.ChangeAuthor | undefined =>
  author && {
    user_id: author.userId,
    api_key_id: author.apiKey?.id ?? 0,
    api_key_name: author.apiKey?.name ?? '',
  };

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
