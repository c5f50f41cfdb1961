import { uniqueSuffix } from '@flowboard/testing';
import { api, boardsCalls, createProject, signUp, XML_HEADERS, type SignedUp } from './support';

/**
 * Board reads answered from the gateway's response cache (design.md, "Response cache"), on the real stack: a
 * repeated read doesn't reach boards, and every kind of change shows on the very next read.
 */
jest.setTimeout(60_000);

let owner: SignedUp;
let P: string;
let phases: Array<{ id: number; name: string }>;
beforeAll(async () => {
  owner = await signUp('cache-owner');
  P = `/api/v1/projects/${(await createProject(owner.key)).id}`;
  phases = (await api(`${P}/phases`, { key: owner.key })).json.items;
  for (const text of ['first', 'second']) {
    const res = await api(`${P}/stories`, {
      method: 'POST',
      key: owner.key,
      body: { text, tags: ['cache-tag'] },
    });
    expect(res.status).toBe(200);
  }
});

const page = () => api(`${P}/stories?with=tags`, { key: owner.key });

describe('response cache', () => {
  it('the same page again is answered without a boards call, in JSON and XML alike', async () => {
    const first = await page();
    const calls = await boardsCalls('ListStories');
    const again = await page();
    expect(again.text).toBe(first.text);
    expect(await boardsCalls('ListStories')).toBe(calls);
    const xml = await api(`${P}/stories?with=tags`, { key: owner.key, headers: XML_HEADERS });
    expect(xml.text).toContain('<text>first</text>');
    expect(await boardsCalls('ListStories')).toBe(calls + 1);
    await api(`${P}/stories?with=tags`, { key: owner.key, headers: XML_HEADERS });
    expect(await boardsCalls('ListStories')).toBe(calls + 1);
  });

  it('a phase move shows on the next read, with its automatic status', async () => {
    await page();
    const middle = phases[1]!;
    const moved = await api(`${P}/stories/1`, { method: 'PUT', key: owner.key, body: { phase: middle.id } });
    expect(moved.status).toBe(200);
    const story = (await page()).json.items.find((s: { id: number }) => s.id === 1);
    expect(story.phase).toEqual({ id: middle.id, name: middle.name });
    expect(story.status).toBe('started');
  });

  it('a tag renamed shows on the next page of its stories', async () => {
    await page();
    const renamed = `cache-tag ${uniqueSuffix()}`;
    expect(
      (await api(`${P}/tags/cache-tag`, { method: 'PUT', key: owner.key, body: { name: renamed } })).status,
    ).toBe(200);
    const items = (await page()).json.items as Array<{ tags: Array<{ name: string }> }>;
    expect(items.map((s) => s.tags.map((t) => t.name))).toEqual([[renamed], [renamed]]);
  });

  it('a user renamed (outside the project’s paths) shows as creator on the next read', async () => {
    await page();
    const name = `Renamed ${uniqueSuffix()}`;
    expect((await api('/api/v1/me', { method: 'PUT', key: owner.key, body: { name } })).status).toBe(200);
    const items = (await page()).json.items as Array<{ creator: { name: string } }>;
    expect(items.map((s) => s.creator.name)).toEqual([name, name]);
  });

  it('a project renamed shows in its stories on the next read', async () => {
    await page();
    const name = `Renamed project ${uniqueSuffix()}`;
    expect((await api(P, { method: 'PUT', key: owner.key, body: { name } })).status).toBe(200);
    const items = (await page()).json.items as Array<{ project: { name: string } }>;
    expect(items.map((s) => s.project.name)).toEqual([name, name]);
    expect((await api(`${P}/stories/1`, { key: owner.key })).json.project.name).toBe(name);
  });

  it('a story deleted is gone from the next read', async () => {
    await page();
    expect((await api(`${P}/stories/2`, { method: 'DELETE', key: owner.key })).status).toBe(200);
    expect((await page()).json.items.map((s: { id: number }) => s.id)).toEqual([1]);
    expect((await api(`${P}/stories/2`, { key: owner.key })).status).toBe(404);
  });

  it('history enrichments run to now: they are rendered on every read', async () => {
    const calls = await boardsCalls('ListStories');
    await api(`${P}/stories?with=steps`, { key: owner.key });
    await api(`${P}/stories?with=steps`, { key: owner.key });
    expect(await boardsCalls('ListStories')).toBe(calls + 2);
  });
});
