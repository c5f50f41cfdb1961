import { api, childNames, createProject, signUp, sorted, XML_HEADERS, type SignedUp } from './support';

/**
 * Story enrichments `milestones`, `steps`, `metrics` and the project `metrics` enrichment (spec "Story
 * enrichments", docs/compat.md §5.2, §5.3), in JSON and XML, through the gateway on the real stack.
 */
jest.setTimeout(60_000);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/;
const seconds = (time: string) => Date.parse(`${time}Z`) / 1000;
const PROJECT_METRIC_KEYS = [
  'throughput',
  'leadTime',
  'cycleTime',
  'workTime',
  'waitTime',
  'blockedTime',
  'efficiency',
];

interface Span {
  id: number;
  startTime: string;
  endTime?: string;
  duration: number;
  /** Who made the change that began it. */
  by?: Record<string, unknown>;
}

describe('story history and metrics', () => {
  let gob: SignedUp;
  let project: { id: number; name: string };
  let phases: Array<{ id: number; name: string }>;
  let started: number; // wall clock at the first write, seconds
  const P = () => `/api/v1/projects/${project.id}`;
  const as = () => ({ key: gob.key });

  const create = async (body: Record<string, unknown>) => {
    const res = await api(`${P()}/stories`, { ...as(), method: 'POST', body });
    expect(res.status).toBe(200);
    return res.json.id as number;
  };
  const update = async (id: number, body: Record<string, unknown>) => {
    const res = await api(`${P()}/stories/${id}`, { ...as(), method: 'PUT', body });
    expect(res.status).toBe(200);
    return res.json;
  };
  const get = async (id: number, withs: string) => {
    const res = await api(`${P()}/stories/${id}?with=${withs}`, as());
    expect(res.status).toBe(200);
    return res.json;
  };

  /** Closed spans end where the next begins; durations are whole seconds, ≥ 0 and within the test's time. */
  function expectTimeline(spans: Span[]) {
    const elapsed = Date.now() / 1000 - started + 2;
    spans.forEach((span, i) => {
      expect(span.startTime).toMatch(TIME);
      expect(Number.isInteger(span.duration)).toBe(true);
      expect(span.duration).toBeGreaterThanOrEqual(0);
      expect(span.duration).toBeLessThanOrEqual(elapsed);
      const next = spans[i + 1];
      if (next) {
        expect(span.endTime).toMatch(TIME);
        expect(span.endTime).toBe(next.startTime);
        expect(span.duration).toBe(seconds(span.endTime!) - seconds(span.startTime));
      } else {
        expect(span).not.toHaveProperty('endTime'); // the open one
      }
    });
  }

  let finishedId: number;
  let workingId: number;
  let plannedId: number;

  /** Gob as users are embedded, with the key he made every change with (his sign-up key: no name). */
  const gobWithOwnKey = async () => {
    const me = (await api('/api/v1/me', as())).json;
    const key = (await api('/api/v1/me/apikeys/current', as())).json;
    return {
      id: gob.id,
      name: me.name,
      userName: gob.userName,
      email: gob.email,
      apiKey: { id: key.id, name: '' },
    };
  };

  beforeAll(async () => {
    gob = await signUp('history');
    project = await createProject(gob.key);
    phases = (await api(`${P()}?with=phases`, as())).json.phases;
    started = Math.floor(Date.now() / 1000);
    finishedId = await create({ text: 'Goes all the way' });
    workingId = await create({ text: 'Created in Working', phase: phases[2]!.id });
    plannedId = await create({ text: 'Stays in Backlog' });
    await sleep(1100);
    await update(finishedId, { phase: phases[2]!.id });
    await sleep(1100);
    await update(finishedId, { status: 'blocked', blockedReason: 'waiting' });
    await sleep(1100);
    await update(finishedId, { status: 'started' });
    await update(finishedId, { phase: { id: phases[4]!.id } });
  });

  it('milestones: one per stay in a phase, oldest first; the open one has no endTime', async () => {
    const story = await get(finishedId, 'milestones');
    const milestones: Array<Span & { phase: { id: number; name: string } }> = story.milestones;
    expect(milestones.map((m) => m.phase)).toEqual(
      [0, 2, 4].map((i) => ({ id: phases[i]!.id, name: phases[i]!.name })),
    );
    expect(Object.keys(milestones[0]!)).toEqual(['id', 'phase', 'startTime', 'endTime', 'duration', 'by']);
    expect(Object.keys(milestones[2]!)).toEqual(['id', 'phase', 'startTime', 'duration', 'by']);
    // Who made each change: gob, with the key from sign-up (no name).
    const byGob = await gobWithOwnKey();
    for (const milestone of milestones) expect(milestone.by).toEqual(byGob);
    expectTimeline(milestones);
    // The Backlog stay lasted about the first sleep; the Working stay about the next two.
    expect(milestones[0]!.duration).toBeGreaterThanOrEqual(1);
    expect(milestones[1]!.duration).toBeGreaterThanOrEqual(2);
    expect(new Set(milestones.map((m) => m.id)).size).toBe(3);
    expect(story).not.toHaveProperty('steps');
    expect(story).not.toHaveProperty('metrics');
  });

  it('steps: one per status period with the mapped type; a move that keeps the status starts none', async () => {
    const story = await get(finishedId, 'steps');
    const steps: Array<Span & { type: string }> = story.steps;
    expect(steps.map((s) => s.type)).toEqual(['backlog', 'working', 'blocked', 'working', 'archive']);
    expect(Object.keys(steps[0]!)).toEqual(['id', 'type', 'startTime', 'endTime', 'duration', 'by']);
    expect(Object.keys(steps[4]!)).toEqual(['id', 'type', 'startTime', 'duration', 'by']);
    expectTimeline(steps);
    expect(steps[2]!.duration).toBeGreaterThanOrEqual(1); // blocked for about a second

    // Created in a middle phase: no Backlog milestone, the first step is `working` from creation.
    const created = await get(workingId, 'milestones,steps');
    expect(created.milestones.map((m: { phase: { id: number } }) => m.phase.id)).toEqual([phases[2]!.id]);
    expect(created.steps.map((s: { type: string }) => s.type)).toEqual(['working']);
    expect(created.steps[0].startTime).toBe(created.milestones[0].startTime);
    // Moving between middle phases keeps `started`: a milestone, but no new step.
    await update(workingId, { phase: phases[3]!.id });
    const moved = await get(workingId, 'milestones,steps');
    expect(moved.milestones).toHaveLength(2);
    expect(moved.steps).toHaveLength(1);
  });

  it('metrics: createTime always, startTime once started, durations once finished', async () => {
    const planned = await get(plannedId, 'metrics');
    expect(Object.keys(planned.metrics)).toEqual(['createTime']);

    const working = await get(workingId, 'metrics');
    expect(Object.keys(working.metrics)).toEqual(['createTime', 'startTime']);
    expect(working.metrics.startTime).toBe(working.metrics.createTime); // created outside Backlog

    const done = await get(finishedId, 'metrics,steps');
    const m = done.metrics;
    expect(Object.keys(m)).toEqual([
      'createTime',
      'startTime',
      'finishTime',
      'leadTime',
      'cycleTime',
      'workTime',
      'waitTime',
      'blockedTime',
      'efficiency',
    ]);
    const steps: Array<Span & { type: string }> = done.steps;
    expect(m.createTime).toBe(steps[0]!.startTime);
    expect(m.startTime).toBe(steps[1]!.startTime);
    expect(m.finishTime).toBe(steps[4]!.startTime);
    expect(m.leadTime).toBe(seconds(m.finishTime) - seconds(m.createTime));
    expect(m.cycleTime).toBe(seconds(m.finishTime) - seconds(m.startTime));
    expect(m.workTime).toBe(steps[1]!.duration + steps[3]!.duration);
    expect(m.blockedTime).toBe(steps[2]!.duration);
    expect(m.waitTime).toBe(m.cycleTime - m.workTime - m.blockedTime);
    expect(m.leadTime).toBeGreaterThanOrEqual(3);
    expect(m.efficiency).toBeGreaterThanOrEqual(0);
    expect(m.efficiency).toBeLessThanOrEqual(100);
  });

  it('lists: every story of the page carries the requested arrays; everything turns all three on', async () => {
    const res = await api(`${P()}/stories?with=milestones,steps,metrics`, as());
    expect(res.status).toBe(200);
    expect(res.json.items).toHaveLength(3);
    for (const story of res.json.items) {
      expect(story.milestones.length).toBeGreaterThanOrEqual(1);
      expect(story.steps.length).toBeGreaterThanOrEqual(1);
      expect(story.metrics.createTime).toMatch(TIME);
    }
    const everything = await get(finishedId, 'everything');
    expect(everything).toHaveProperty('milestones');
    expect(everything).toHaveProperty('steps');
    expect(everything).toHaveProperty('metrics');
    const plain = await api(`${P()}/stories`, as());
    for (const story of plain.json.items) {
      expect(story).not.toHaveProperty('milestones');
      expect(story).not.toHaveProperty('metrics');
    }
    // A create answers with the history it just opened.
    const created = await api(`${P()}/stories?with=milestones,steps`, {
      ...as(),
      method: 'POST',
      body: { text: 'fresh' },
    });
    expect(created.json.milestones).toHaveLength(1);
    expect(created.json.steps).toEqual([
      {
        id: expect.any(Number),
        type: 'backlog',
        startTime: expect.stringMatching(TIME),
        duration: expect.any(Number),
        by: await gobWithOwnKey(),
      },
    ]);
  });

  it('XML: milestones/milestone and steps/step, children alphabetical, no endTime on the open one', async () => {
    const res = await api(`${P()}/stories/${finishedId}?with=milestones,steps,metrics`, {
      ...as(),
      headers: XML_HEADERS,
    });
    expect(res.status).toBe(200);
    const xml = res.text;
    expect(xml).toMatch(/<milestones><milestone><by><apiKey><id>\d+<\/id><name \/><\/apiKey><email>/);
    expect(childNames(xml, 'milestone')).toEqual(['by', 'duration', 'endTime', 'id', 'phase', 'startTime']);
    expect(childNames(xml, 'step')).toEqual(['by', 'duration', 'endTime', 'id', 'startTime', 'type']);
    expect(xml.match(/<milestone>/g)).toHaveLength(3);
    expect(xml.match(/<step>/g)).toHaveLength(5);
    const lastStep = /<step>((?:(?!<step>).)*)<\/step><\/steps>/.exec(xml)?.[1] ?? '';
    expect(lastStep).not.toContain('endTime');
    expect(lastStep).toContain('<type>archive</type>');
    expect(childNames(xml, 'metrics')).toEqual(
      sorted([
        'createTime',
        'startTime',
        'finishTime',
        'leadTime',
        'cycleTime',
        'workTime',
        'waitTime',
        'blockedTime',
        'efficiency',
      ]),
    );
    const planned = await api(`${P()}/stories/${plannedId}.xml?with=metrics,milestones`, as());
    expect(childNames(planned.text, 'metrics')).toEqual(['createTime']);
  });

  it('unknown enrichments are still 400', async () => {
    const res = await api(`${P()}/stories/${finishedId}?with=milestone`, as());
    expect(res.status).toBe(400);
    expect(res.json.type).toBe('urn:flowboard:problem:unknown-enrichment');
  });
});

describe('project metrics', () => {
  let owner: SignedUp;
  beforeAll(async () => {
    owner = await signUp('pmetrics');
  });

  it('always present, all 0 until something finishes (JSON and XML)', async () => {
    const project = await createProject(owner.key);
    const res = await api(`/api/v1/projects/${project.id}?with=metrics`, { key: owner.key });
    expect(res.status).toBe(200);
    expect(res.json.metrics).toEqual(Object.fromEntries(PROJECT_METRIC_KEYS.map((k) => [k, 0])));
    const xml = await api(`/api/v1/projects/${project.id}.xml?with=metrics`, { key: owner.key });
    expect(childNames(xml.text, 'metrics')).toEqual(sorted(PROJECT_METRIC_KEYS));
    expect(xml.text).toContain('<throughput>0</throughput>');
    const plain = await api(`/api/v1/projects/${project.id}`, { key: owner.key });
    expect(plain.json).not.toHaveProperty('metrics');
  });

  it('counts the stories that entered Archive, with mean times; lists enrich every project', async () => {
    const project = await createProject(owner.key);
    const P = `/api/v1/projects/${project.id}`;
    const phases = (await api(`${P}?with=phases`, { key: owner.key })).json.phases;
    const ids: number[] = [];
    for (const text of ['one', 'two', 'stays']) {
      ids.push((await api(`${P}/stories`, { key: owner.key, method: 'POST', body: { text } })).json.id);
    }
    await api(`${P}/stories/${ids[0]}`, { key: owner.key, method: 'PUT', body: { phase: phases[2].id } });
    await sleep(1100);
    for (const id of ids.slice(0, 2))
      await api(`${P}/stories/${id}`, { key: owner.key, method: 'PUT', body: { phase: phases[4].id } });

    const res = await api(`${P}?with=everything`, { key: owner.key });
    const m = res.json.metrics;
    expect(Object.keys(m)).toEqual(PROJECT_METRIC_KEYS);
    expect(m.throughput).toBe(2);
    expect(m.leadTime).toBeGreaterThanOrEqual(1);
    expect(m.leadTime).toBeLessThan(60);
    expect(m.cycleTime).toBeLessThanOrEqual(m.leadTime);
    expect(m.workTime + m.waitTime + m.blockedTime).toBeLessThanOrEqual(m.cycleTime + 1);
    expect(m.efficiency).toBeGreaterThanOrEqual(0);
    expect(m.efficiency).toBeLessThanOrEqual(100);
    // The story's own metrics agree with the project's count.
    const one = await api(`${P}/stories/${ids[0]}?with=metrics`, { key: owner.key });
    expect(one.json.metrics.leadTime).toBeGreaterThanOrEqual(1);

    const list = await api('/api/v1/projects?with=metrics', { key: owner.key });
    expect(list.status).toBe(200);
    const byId = new Map(list.json.items.map((p: { id: number; metrics: unknown }) => [p.id, p.metrics]));
    expect(byId.size).toBe(2); // both projects of this user
    for (const metrics of byId.values()) expect(Object.keys(metrics as object)).toEqual(PROJECT_METRIC_KEYS);
    expect((byId.get(project.id) as { throughput: number }).throughput).toBe(2);
    const xml = await api('/api/v1/projects.xml?with=metrics', { key: owner.key });
    expect(xml.text.match(/<metrics>/g)).toHaveLength(2);
  });
});
