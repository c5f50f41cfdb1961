import { randomBytes } from 'node:crypto';
import { setAccountLimits } from './operator';
import { listObjects, storageUsed } from './storage';
import { GATEWAY_URL, api, createProject, signUp, type SignedUp } from './support';

/**
 * The storage quota is exact to the byte through the gateway: an upload that leaves the account exactly full is
 * accepted although its request (multipart framing, part headers) is longer than the room left, and one byte
 * more is refused with nothing kept.
 */
jest.setTimeout(60_000);

/** Uploads files of random bytes in one body (fetch sends a Content-Length). */
async function upload(key: string, projectId: number, storyId: number, ...sizes: number[]) {
  const body = new FormData();
  sizes.forEach((size, i) => body.append('file', new Blob([new Uint8Array(randomBytes(size))]), `f${i}.bin`));
  const res = await fetch(`${GATEWAY_URL}/api/v1/projects/${projectId}/stories/${storyId}/attachments`, {
    method: 'POST',
    headers: { 'X-Zen-ApiKey': key },
    body,
  });
  return { status: res.status, json: JSON.parse(await res.text()) as Record<string, unknown> };
}

describe('the storage quota, exact to the byte', () => {
  const LIMIT = 100_000;
  let owner: SignedUp;
  let projectId: number;
  let storyId: number;

  beforeAll(async () => {
    owner = await signUp('exactquota');
    projectId = (await createProject(owner.key)).id;
    const story = await api(`/api/v1/projects/${projectId}/stories`, {
      method: 'POST',
      key: owner.key,
      body: { text: 'Exact quota story' },
    });
    expect(story.status).toBe(200);
    storyId = story.json.id as number;
    await setAccountLimits(owner.id, { storageLimitBytes: LIMIT });
  });

  it('refuses files one byte over the room left (402), keeping nothing', async () => {
    const res = await upload(owner.key, projectId, storyId, 60_000, 40_001);
    expect(res.status).toBe(402);
    expect(res.json.type).toBe('urn:flowboard:problem:plan-limit');
    expect(await storageUsed(owner)).toBe(0);
    expect(await listObjects(`${projectId}/`)).toEqual([]);
  });

  it('accepts files that leave the account exactly full, then refuses a single byte', async () => {
    const res = await upload(owner.key, projectId, storyId, 60_000, 40_000);
    expect(res.status).toBe(200);
    expect((res.json.items as Array<{ sizeInBytes: number }>).map((a) => a.sizeInBytes)).toEqual([
      60_000, 40_000,
    ]);
    expect(await storageUsed(owner)).toBe(LIMIT);
    expect(await listObjects(`${projectId}/`)).toHaveLength(2);

    expect((await upload(owner.key, projectId, storyId, 1)).status).toBe(402);
    expect(await storageUsed(owner)).toBe(LIMIT);
    expect(await listObjects(`${projectId}/`)).toHaveLength(2);
  });
});
