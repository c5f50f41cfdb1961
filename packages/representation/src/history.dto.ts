import type { boards } from '@flowboard/proto';
import type { Dto } from './dto';
import { embeddedUser, type UsersById } from './user.dto';

/**
 * Story history and metrics (spec "Story enrichments", docs/compat.md §5.2–5.3). Open milestones and steps
 * have no `endTime`; their `duration` (seconds) runs to now. Unreached metric times are omitted.
 */

/**
 * Milestone: `id, phase {id, name}, startTime, endTime (closed only), duration, by`. `by` is who made the change
 * that began it, as users are embedded, with `apiKey {id, name}` (the key, named as it was then) when known; left
 * out for history recorded before authors were.
 */
export const milestoneDto = (m: boards.Milestone__Output, users: UsersById): Dto => ({
  id: m.id,
  phase: m.phase ? { id: m.phase.id, name: m.phase.name } : undefined,
  startTime: m.start_time,
  endTime: m.end_time || undefined,
  duration: m.duration,
  by: authorDto(m.author, users),
});

/** Step: `id, type, startTime, endTime (closed only), duration, by` (as for milestones). */
export const stepDto = (s: boards.Step__Output, users: UsersById): Dto => ({
  id: s.id,
  type: s.type,
  startTime: s.start_time,
  endTime: s.end_time || undefined,
  duration: s.duration,
  by: authorDto(s.author, users),
});

const authorDto = (author: boards.ChangeAuthor__Output | null, users: UsersById): Dto | undefined =>
  author
    ? {
        ...embeddedUser(author.user_id, users),
        ...(author.api_key_id ? { apiKey: { id: author.api_key_id, name: author.api_key_name } } : {}),
      }
    : undefined;

/** The users a story history's `by` names, to resolve with the rest of a page's. */
export const historyUserIds = (history: boards.StoryHistory__Output): number[] =>
  [...history.milestones, ...history.steps].flatMap((row) => (row.author ? [row.author.user_id] : []));

/**
 * Story metrics: `createTime` always, `startTime` once started, `finishTime` and the durations once finished
 * (an unstarted story has only `createTime`, docs/compat.md §5.2).
 */
export function storyMetricsDto(m: boards.StoryMetrics__Output): Dto {
  const finished = m.finished;
  return {
    createTime: m.create_time,
    startTime: m.start_time || undefined,
    finishTime: finished ? m.finish_time : undefined,
    leadTime: finished ? m.lead_time : undefined,
    cycleTime: finished ? m.cycle_time : undefined,
    workTime: finished ? m.work_time : undefined,
    waitTime: finished ? m.wait_time : undefined,
    blockedTime: finished ? m.blocked_time : undefined,
    efficiency: finished ? m.efficiency : undefined,
  };
}

/** Project metrics: always every field, all 0 until a story finishes in the window (docs/compat.md §5.2). */
export const projectMetricsDto = (m: boards.ProjectMetrics__Output | undefined): Dto => ({
  throughput: m?.throughput ?? 0,
  leadTime: m?.lead_time ?? 0,
  cycleTime: m?.cycle_time ?? 0,
  workTime: m?.work_time ?? 0,
  waitTime: m?.wait_time ?? 0,
  blockedTime: m?.blocked_time ?? 0,
  efficiency: m?.efficiency ?? 0,
});
