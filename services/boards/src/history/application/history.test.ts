import type { FinishedStoryHistory, MilestoneRecord, StepRecord, StoryHistoryReader } from './ports';
import { makeBatchGetProjectMetrics } from './batch-get-project-metrics';
import { makeBatchGetStoryHistory } from './batch-get-story-history';

const T0 = Date.UTC(2026, 0, 1);
const at = (seconds: number) => new Date(T0 + seconds * 1000);
const NOW = at(100);

/** A reader over fixed rows; records what it was asked. */
function fakeReader(rows: {
  milestones?: MilestoneRecord[];
  steps?: StepRecord[];
  created?: Array<[number, Date]>;
  finished?: FinishedStoryHistory[];
}) {
  const asked: string[] = [];
  const reader: StoryHistoryReader = {
    milestonesFor: async (_p, ids) => {
      asked.push('milestones');
      return (rows.milestones ?? []).filter((m) => ids.includes(m.storyId));
    },
    stepsFor: async (_p, ids) => {
      asked.push('steps');
      return (rows.steps ?? []).filter((s) => ids.includes(s.storyId));
    },
    createdAtFor: async () => {
      asked.push('created');
      return new Map(rows.created ?? []);
    },
    finishedSince: async (projectIds, since) => {
      asked.push(`finished since ${since.toISOString()}`);
      return (rows.finished ?? []).filter((s) => projectIds.includes(s.projectId));
    },
  };
  return { reader, asked };
}

describe('BatchGetStoryHistory', () => {
  const steps: StepRecord[] = [
    { id: 1, storyId: 7, type: 'backlog', start: at(0), end: at(10) },
    { id: 2, storyId: 7, type: 'working', start: at(10), end: null },
  ];
  const milestones: MilestoneRecord[] = [
    { id: 5, storyId: 7, phase: { id: 1, name: 'Backlog' }, start: at(0), end: null },
  ];

  it('times closed rows to their end and open rows to now; only the requested parts are read', async () => {
    const { reader, asked } = fakeReader({ steps, milestones });
    const byStory = await makeBatchGetStoryHistory(reader, () => NOW)(1, [7, 8, 7], {
      milestones: false,
      steps: true,
      metrics: false,
    });
    expect(asked).toEqual(['steps']);
    expect(byStory.get(7)?.steps?.map((s) => s.duration)).toEqual([10, 90]);
    expect(byStory.get(7)?.milestones).toBeUndefined();
    expect(byStory.get(8)).toEqual({ steps: [] });
  });

  it('metrics need the creation time; a story that does not exist is left out', async () => {
    const { reader } = fakeReader({ steps, milestones, created: [[7, at(0)]] });
    const byStory = await makeBatchGetStoryHistory(reader, () => NOW)(1, [7, 8], {
      milestones: true,
      steps: false,
      metrics: true,
    });
    expect(byStory.get(7)).toEqual({
      milestones: [{ ...milestones[0], duration: 100 }],
      metrics: { createTime: at(0), startTime: at(10) },
    });
    expect(byStory.has(8)).toBe(false);
  });

  it('reads nothing when nothing is requested', async () => {
    const { reader, asked } = fakeReader({});
    const none = { milestones: false, steps: false, metrics: false };
    expect((await makeBatchGetStoryHistory(reader)(1, [1], none)).size).toBe(0);
    expect(asked).toEqual([]);
  });
});

describe('BatchGetProjectMetrics', () => {
  it('uses the window, answers every project once, zeros without finished stories', async () => {
    const finished: FinishedStoryHistory[] = [
      {
        projectId: 1,
        storyId: 3,
        createdAt: at(0),
        steps: [
          { id: 1, storyId: 3, type: 'working', start: at(0), end: at(40) },
          { id: 2, storyId: 3, type: 'archive', start: at(60), end: null },
        ],
      },
    ];
    const { reader, asked } = fakeReader({ finished });
    const result = await makeBatchGetProjectMetrics(reader, 30, () => NOW)([1, 2, 1]);
    expect(asked).toEqual([`finished since ${new Date(NOW.getTime() - 30 * 86_400_000).toISOString()}`]);
    expect([...result.keys()]).toEqual([1, 2]);
    expect(result.get(1)).toEqual({
      throughput: 1,
      leadTime: 60,
      cycleTime: 60,
      workTime: 40,
      blockedTime: 0,
      waitTime: 20,
      efficiency: 66.7,
    });
    expect(result.get(2)?.throughput).toBe(0);
    await expect(makeBatchGetProjectMetrics(reader, 30)([0])).rejects.toMatchObject({
      kind: 'InvalidArgument',
    });
  });
});
