import { randomBytes } from 'node:crypto';
import { waitFor } from '@flowboard/testing';
import { setAccountLimits } from './operator';
import { listObjects, storageUsed } from './storage';
import { GATEWAY_URL, api, createProject, signUp, type SignedUp } from './support';

/**
 * The storage quota and the clean-up of attachments, through the gateway against the real stack: concurrent
 * uploads never pass the account's limit, usage (GET /me/account) matches the bytes stored, deleting frees
 * space, and deleting a project or a story removes its objects from MinIO within seconds (events).
 */
jest.setTimeout(90_000);

async function createStory(key: string, projectId: number): Promise<number> {
  const res = await api(`/api/v1/projects/${projectId}/stories`, {
    method: 'POST',
    key,
    body: { text: 'Quota story' },
  });
  expect(res.status).toBe(200);
  return res.json.id as number;
}

/** Uploads one file of random bytes (fetch sends a Content-Length). */
async function upload(key: string, projectId: number, storyId: number, size: number) {
  const body = new FormData();
  body.append('file', new Blob([new Uint8Array(randomBytes(size))]), 'data.bin');
  const res = await fetch(`${GATEWAY_URL}/api/v1/projects/${projectId}/stories/${storyId}/attachments`, {
    method: 'POST',
    headers: { 'X-Zen-ApiKey': key },
    body,
  });
  const text = await res.text();
  return { status: res.status, json: JSON.parse(text) as Record<string, unknown> };
}

/** Waits until nothing is stored under `prefix` (events are eventually consistent: seconds). */
const gone = (prefix: string) =>
  waitFor(
    async () => ((await listObjects(prefix)).length === 0 ? true : undefined),
    20_000,
    `${prefix} empty`,
  );

describe('storage quota', () => {
  let owner: SignedUp;
  let projectId: number;
  let storyId: number;
  const SIZE = 256 * 1024;

  beforeAll(async () => {
    owner = await signUp('quota');
    projectId = (await createProject(owner.key)).id;
    storyId = await createStory(owner.key, projectId);
    await setAccountLimits(owner.id, { storageLimitBytes: Math.floor(SIZE * 3.5) });
  });

  it('10 concurrent uploads against a limit that fits 3: exactly 3 succeed, the others 402', async () => {
    const results = await Promise.all(
      Array.from({ length: 10 }, () => upload(owner.key, projectId, storyId, SIZE)),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 200, 200, 402, 402, 402, 402, 402, 402, 402]);
    for (const refused of results.filter((r) => r.status === 402)) {
      expect(refused.json.type).toBe('urn:flowboard:problem:plan-limit');
    }
    // Usage matches the bytes stored: the rows, and the objects in MinIO.
    expect(await storageUsed(owner)).toBe(3 * SIZE);
    const list = await api(`/api/v1/projects/${projectId}/stories/${storyId}/attachments`, {
      key: owner.key,
    });
    const sizes = (list.json.items as Array<{ sizeInBytes: number }>).map((a) => a.sizeInBytes);
    expect(sizes).toEqual([SIZE, SIZE, SIZE]);
    expect(await listObjects(`${projectId}/`)).toHaveLength(3);
  });

  it('deleting an attachment frees its space for the next upload', async () => {
    expect((await upload(owner.key, projectId, storyId, SIZE)).status).toBe(402);
    const list = await api(`/api/v1/projects/${projectId}/stories/${storyId}/attachments`, {
      key: owner.key,
    });
    const first = list.json.items[0].id as number;
    const del = await api(`/api/v1/projects/${projectId}/stories/${storyId}/attachments/${first}`, {
      method: 'DELETE',
      key: owner.key,
    });
    expect(del.status).toBe(200);
    expect(await storageUsed(owner)).toBe(2 * SIZE);
    expect(await listObjects(`${projectId}/`)).toHaveLength(2);
    expect((await upload(owner.key, projectId, storyId, SIZE)).status).toBe(200);
    expect(await storageUsed(owner)).toBe(3 * SIZE);
  });
});

describe('no orphans', () => {
  let owner: SignedUp;

  beforeAll(async () => {
    owner = await signUp('orphans');
  });

  it('deleting a project removes its attachments from MinIO within seconds and frees the space', async () => {
    const projectId = (await createProject(owner.key)).id;
    const [a, b] = [await createStory(owner.key, projectId), await createStory(owner.key, projectId)];
    for (const s of [a, a, b]) expect((await upload(owner.key, projectId, s, 1000)).status).toBe(200);
    expect(await listObjects(`${projectId}/`)).toHaveLength(3);
    const before = await storageUsed(owner);

    const del = await api(`/api/v1/projects/${projectId}`, { method: 'DELETE', key: owner.key });
    expect(del.status).toBe(200);
    await gone(`${projectId}/`);
    expect(await storageUsed(owner)).toBe(before - 3000);
  });

  it('deleting a story removes its attachments from MinIO within seconds, the others stay', async () => {
    const projectId = (await createProject(owner.key)).id;
    const [a, b] = [await createStory(owner.key, projectId), await createStory(owner.key, projectId)];
    for (const s of [a, a, b]) expect((await upload(owner.key, projectId, s, 1000)).status).toBe(200);
    const before = await storageUsed(owner);

    const del = await api(`/api/v1/projects/${projectId}/stories/${a}`, { method: 'DELETE', key: owner.key });
    expect(del.status).toBe(200);
    await gone(`${projectId}/${a}/`);
    expect(await listObjects(`${projectId}/${b}/`)).toHaveLength(1);
    expect(await storageUsed(owner)).toBe(before - 2000);
  });
});
