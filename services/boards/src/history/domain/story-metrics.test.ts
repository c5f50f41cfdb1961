import {
  durationSeconds,
  percentage,
  projectMetrics,
  storyMetrics,
  ZERO_PROJECT_METRICS,
  type StepSpan,
  type StoryMetrics,
} from './story-metrics';

/** Minutes after a fixed origin, so the tables read as a timeline. */
const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);
const at = (minutes: number) => new Date(T0 + minutes * 60_000);
const step = (type: StepSpan['type'], from: number, to: number | null): StepSpan => ({
  type,
  start: at(from),
  end: to === null ? null : at(to),
});
const NOW = at(1000);

describe('durationSeconds', () => {
  it.each<[string, Date, Date | null, number]>([
    ['closed span', at(0), at(2), 120],
    ['open span runs to now', at(990), null, 600],
    ['zero length', at(5), at(5), 0],
    // Whole seconds, as shown: 12:00:00.900 → 12:00:02.100 is shown as 2 s apart.
    ['sub-second edges follow the shown times', new Date(T0 + 900), new Date(T0 + 2100), 2],
    ['an end before the start is 0, never negative', at(3), at(2), 0],
  ])('%s', (_name, start, end, expected) => {
    expect(durationSeconds({ start, end }, NOW)).toBe(expected);
  });
});

describe('percentage', () => {
  it.each<[number, number, number]>([
    [1, 3, 33.3],
    [2, 3, 66.7],
    [5, 5, 100],
    [0, 10, 0],
    [7, 0, 0],
  ])('%d of %d is %d %%', (part, whole, expected) => {
    expect(percentage(part, whole)).toBe(expected);
  });
});

describe('storyMetrics', () => {
  const created = at(0);
  it.each<[string, StepSpan[], StoryMetrics]>([
    ['unstarted: only createTime', [step('backlog', 0, null)], { createTime: created }],
    [
      'started, not finished: createTime and startTime',
      [step('backlog', 0, 10), step('working', 10, null)],
      { createTime: created, startTime: at(10) },
    ],
    [
      'created outside Backlog starts at creation',
      [step('working', 0, null)],
      { createTime: created, startTime: at(0) },
    ],
    [
      'finished: work, blocked and wait add up to the cycle',
      [
        step('backlog', 0, 10),
        step('working', 10, 40),
        step('blocked', 40, 50),
        step('ready', 50, 70),
        step('working', 70, 80),
        step('archive', 80, null),
      ],
      {
        createTime: created,
        startTime: at(10),
        finished: {
          finishTime: at(80),
          leadTime: 80 * 60,
          cycleTime: 70 * 60,
          workTime: 40 * 60,
          blockedTime: 10 * 60,
          waitTime: 20 * 60,
          efficiency: 57.1,
        },
      },
    ],
    [
      'straight from Backlog to Archive: zero cycle, efficiency 0',
      [step('backlog', 0, 30), step('archive', 30, null)],
      {
        createTime: created,
        startTime: at(30),
        finished: {
          finishTime: at(30),
          leadTime: 30 * 60,
          cycleTime: 0,
          workTime: 0,
          blockedTime: 0,
          waitTime: 0,
          efficiency: 0,
        },
      },
    ],
    [
      'left Archive again: no longer finished',
      [step('backlog', 0, 5), step('archive', 5, 8), step('working', 8, null)],
      { createTime: created, startTime: at(5) },
    ],
    [
      'finished twice: the last entry into Archive counts, the start stays the first',
      [step('working', 0, 10), step('archive', 10, 20), step('working', 20, 25), step('archive', 25, null)],
      {
        createTime: created,
        startTime: at(0),
        finished: {
          finishTime: at(25),
          leadTime: 25 * 60,
          cycleTime: 25 * 60,
          workTime: 15 * 60,
          blockedTime: 0,
          waitTime: 10 * 60,
          efficiency: 60,
        },
      },
    ],
  ])('%s', (_name, steps, expected) => {
    expect(storyMetrics(created, steps, NOW)).toEqual(expected);
  });
});

describe('projectMetrics', () => {
  const finished = (leadTime: number, cycleTime: number, workTime: number, blockedTime: number) => ({
    finishTime: at(0),
    leadTime,
    cycleTime,
    workTime,
    blockedTime,
    waitTime: cycleTime - workTime - blockedTime,
    efficiency: percentage(workTime, cycleTime),
  });

  it('is all zeros when nothing finished', () => {
    expect(projectMetrics([])).toEqual(ZERO_PROJECT_METRICS);
  });

  it.each<[string, ReturnType<typeof finished>[], typeof ZERO_PROJECT_METRICS]>([
    [
      'one story',
      [finished(100, 80, 40, 10)],
      {
        throughput: 1,
        leadTime: 100,
        cycleTime: 80,
        workTime: 40,
        blockedTime: 10,
        waitTime: 30,
        efficiency: 50,
      },
    ],
    [
      'means rounded to whole seconds; efficiency is Σwork ÷ Σcycle, not the mean of ratios',
      [finished(10, 10, 10, 0), finished(101, 90, 0, 0)],
      {
        throughput: 2,
        leadTime: 56,
        cycleTime: 50,
        workTime: 5,
        blockedTime: 0,
        waitTime: 45,
        efficiency: 10,
      },
    ],
  ])('%s', (_name, stories, expected) => {
    expect(projectMetrics(stories)).toEqual(expected);
  });
});
