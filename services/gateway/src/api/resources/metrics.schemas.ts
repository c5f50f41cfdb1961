import { int, resource, timestamp, type ResourceSchemas } from '../schema';

/**
 * The metrics enrichments (`with=metrics`): a project's over a window (project-metrics.ts) and one story's
 * (story-views.ts), both from the history boards keeps: one table in docs/compat.md §5.2.
 */
export const metricSchemas: ResourceSchemas = {
  responses: {
    ProjectMetrics: resource(
      'metrics',
      ['throughput', 'leadTime', 'cycleTime', 'workTime', 'blockedTime', 'waitTime', 'efficiency'],
      {
        throughput: int('Stories that entered Archive in the window.'),
        leadTime: { type: 'number' },
        cycleTime: { type: 'number' },
        workTime: { type: 'number' },
        blockedTime: { type: 'number' },
        waitTime: { type: 'number' },
        efficiency: { type: 'number', description: 'Percent, one decimal.' },
      },
      {
        description:
          'Seconds (means over the window), except `throughput` and `efficiency` (docs/compat.md §5.2).',
      },
    ),
    StoryMetrics: resource(
      'metrics',
      ['createTime'],
      {
        createTime: timestamp,
        startTime: timestamp,
        finishTime: timestamp,
        leadTime: int(),
        cycleTime: int(),
        workTime: int(),
        blockedTime: int(),
        waitTime: int(),
        efficiency: { type: 'number' },
      },
      { description: 'Times are present once reached; durations (seconds) once the story is finished.' },
    ),
  },
};
