import type { StepType } from './steps';

/**
 * Story and project metrics (docs/compat.md §5.2 "Metrics"), computed from a story's steps. Pure functions:
 * the repository reads the rows, these decide. Every time is whole seconds, as the API shows it.
 *
 * Steps mirror the phases where it matters: a story is `planned` (step `backlog`) exactly while in Backlog and
 * `finished` (step `archive`) exactly while in Archive (§5.3), so the steps alone say when it started and
 * finished:
 * - start: the start of the first step that is not `backlog` (a story created outside Backlog starts at creation);
 * - finish: the start of the open step, when that step is `archive` (the last entry into Archive, while there).
 */

export interface HistorySpan {
  start: Date;
  /** null while open. */
  end: Date | null;
}

export interface StepSpan extends HistorySpan {
  type: StepType;
}

export interface StoryMetrics {
  createTime: Date;
  /** Once started. */
  startTime?: Date;
  /** The durations are present only once finished. */
  finished?: {
    finishTime: Date;
    leadTime: number;
    cycleTime: number;
    workTime: number;
    blockedTime: number;
    waitTime: number;
    efficiency: number;
  };
}

export interface ProjectMetrics {
  throughput: number;
  leadTime: number;
  cycleTime: number;
  workTime: number;
  blockedTime: number;
  waitTime: number;
  efficiency: number;
}

export const ZERO_PROJECT_METRICS: Readonly<ProjectMetrics> = Object.freeze({
  throughput: 0,
  leadTime: 0,
  cycleTime: 0,
  workTime: 0,
  blockedTime: 0,
  waitTime: 0,
  efficiency: 0,
});

/** Whole seconds since the epoch: durations agree with the second-resolution times the API shows. */
const seconds = (date: Date): number => Math.floor(date.getTime() / 1000);

/**
 * Seconds from `start` to `end` (or to `now` while open), never negative. Computed on whole seconds, so a
 * closed span's duration equals endTime − startTime as shown.
 */
export function durationSeconds(span: HistorySpan, now: Date): number {
  return Math.max(0, seconds(span.end ?? now) - seconds(span.start));
}

/** Seconds of [start, end] that fall inside [from, to]. */
function overlapSeconds(span: HistorySpan, from: Date, to: Date, now: Date): number {
  const start = Math.max(seconds(span.start), seconds(from));
  const end = Math.min(seconds(span.end ?? now), seconds(to));
  return Math.max(0, end - start);
}

/** A percentage with one decimal; 0 when the whole is 0. */
export function percentage(part: number, whole: number): number {
  if (whole <= 0) return 0;
  return Math.round((part / whole) * 1000) / 10;
}

/** The metrics of one story from its creation time and its steps (oldest first). */
export function storyMetrics(createdAt: Date, steps: readonly StepSpan[], now: Date): StoryMetrics {
  const metrics: StoryMetrics = { createTime: createdAt };
  const started = steps.find((s) => s.type !== 'backlog');
  if (!started) return metrics;
  metrics.startTime = started.start;
  const open = steps.at(-1);
  if (!open || open.end !== null || open.type !== 'archive') return metrics;
  const finishTime = open.start;
  const leadTime = Math.max(0, seconds(finishTime) - seconds(createdAt));
  const cycleTime = Math.max(0, seconds(finishTime) - seconds(started.start));
  const sum = (type: StepType) =>
    steps
      .filter((s) => s.type === type)
      .reduce((total, s) => total + overlapSeconds(s, started.start, finishTime, now), 0);
  const workTime = sum('working');
  const blockedTime = sum('blocked');
  metrics.finished = {
    finishTime,
    leadTime,
    cycleTime,
    workTime,
    blockedTime,
    waitTime: Math.max(0, cycleTime - workTime - blockedTime),
    efficiency: percentage(workTime, cycleTime),
  };
  return metrics;
}

/**
 * A project's metrics over the stories that finished in the window: throughput counts them, times are means
 * (rounded to whole seconds), efficiency is Σwork ÷ Σcycle. All 0 when nothing finished.
 */
export function projectMetrics(finished: readonly NonNullable<StoryMetrics['finished']>[]): ProjectMetrics {
  const n = finished.length;
  if (n === 0) return { ...ZERO_PROJECT_METRICS };
  const total = (pick: (m: NonNullable<StoryMetrics['finished']>) => number) =>
    finished.reduce((sum, m) => sum + pick(m), 0);
  const mean = (pick: (m: NonNullable<StoryMetrics['finished']>) => number) => Math.round(total(pick) / n);
  return {
    throughput: n,
    leadTime: mean((m) => m.leadTime),
    cycleTime: mean((m) => m.cycleTime),
    workTime: mean((m) => m.workTime),
    blockedTime: mean((m) => m.blockedTime),
    waitTime: mean((m) => m.waitTime),
    efficiency: percentage(
      total((m) => m.workTime),
      total((m) => m.cycleTime),
    ),
  };
}
