import type { boards } from '@flowboard/proto';
import { milestoneDto, projectMetricsDto, stepDto, storyMetricsDto, toJson } from '@flowboard/representation';
import { toXml } from './xml';

const metrics = (m: Partial<boards.StoryMetrics__Output>): boards.StoryMetrics__Output => ({
  create_time: '2026-01-01T00:00:00',
  start_time: '',
  finish_time: '',
  finished: false,
  lead_time: 0,
  cycle_time: 0,
  work_time: 0,
  blocked_time: 0,
  wait_time: 0,
  efficiency: 0,
  ...m,
});

const NO_USERS = new Map();

describe('history DTOs', () => {
  it('milestones and steps omit endTime while open', () => {
    const open = { id: 2, start_time: '2026-01-01T00:00:05', end_time: '', duration: 7, author: null };
    expect(toJson(milestoneDto({ ...open, phase: { id: 3, name: 'Working' } }, NO_USERS))).toBe(
      '{"id":2,"phase":{"id":3,"name":"Working"},"startTime":"2026-01-01T00:00:05","duration":7}',
    );
    expect(toJson(stepDto({ ...open, type: 'working', end_time: '2026-01-01T00:00:09' }, NO_USERS))).toBe(
      '{"id":2,"type":"working","startTime":"2026-01-01T00:00:05","endTime":"2026-01-01T00:00:09","duration":7}',
    );
  });

  it('say who made the change that began them: the user as embedded, with the API key when known', () => {
    const gob = { id: 7, name: 'Gob', user_name: 'gob', email: 'gob@bluth.com', bio: '', create_time: '' };
    const users = new Map([[7, gob]]);
    const row = { id: 2, start_time: '2026-01-01T00:00:05', end_time: '', duration: 7, type: 'working' };
    const byKey = { user_id: 7, api_key_id: 12, api_key_name: 'triage bot' };
    expect(toJson(stepDto({ ...row, author: byKey }, users))).toBe(
      '{"id":2,"type":"working","startTime":"2026-01-01T00:00:05","duration":7,' +
        '"by":{"id":7,"name":"Gob","userName":"gob","email":"gob@bluth.com","apiKey":{"id":12,"name":"triage bot"}}}',
    );
    const noKey = { user_id: 7, api_key_id: 0, api_key_name: '' };
    expect(toJson(stepDto({ ...row, author: noKey }, users))).toContain(
      '"by":{"id":7,"name":"Gob","userName":"gob","email":"gob@bluth.com"}}',
    );
  });

  it.each<[string, Partial<boards.StoryMetrics__Output>, string[]]>([
    ['unstarted: createTime only', {}, ['createTime']],
    ['started: createTime and startTime', { start_time: '2026-01-01T00:01:00' }, ['createTime', 'startTime']],
    [
      'finished: every field',
      {
        start_time: '2026-01-01T00:01:00',
        finish_time: '2026-01-01T00:02:00',
        finished: true,
        lead_time: 120,
      },
      [
        'createTime',
        'startTime',
        'finishTime',
        'leadTime',
        'cycleTime',
        'workTime',
        'waitTime',
        'blockedTime',
        'efficiency',
      ],
    ],
  ])('story metrics, %s', (_name, fields, keys) => {
    expect(Object.keys(JSON.parse(toJson(storyMetricsDto(metrics(fields)))))).toEqual(keys);
  });

  it('project metrics are all present and 0 without data; XML children in alphabetical order', () => {
    const dto = projectMetricsDto(undefined);
    expect(dto).toEqual({
      throughput: 0,
      leadTime: 0,
      cycleTime: 0,
      workTime: 0,
      waitTime: 0,
      blockedTime: 0,
      efficiency: 0,
    });
    expect(toXml('project', { metrics: dto })).toContain(
      '<metrics><blockedTime>0</blockedTime><cycleTime>0</cycleTime><efficiency>0</efficiency>',
    );
  });
});
