import { randomBytes, randomUUID } from 'node:crypto';
import { api, createProject, signUp, type SignedUp } from './support';

/**
 * Idempotency-Key end to end (issue 17): retried creates and moves happen once, in JSON and XML; the same key
 * with another request is 422. Replicas and restarts are covered by the gateway's integration test.
 */
jest.setTimeout(60_000);

let owner: SignedUp;
let P: string;

beforeAll(async () => {
  owner = await signUp('idem');
  P = `/api/v1/projects/${(await createProject(owner.key, 'Retries')).id}`;
});

const key = () => `"${randomUUID()}"`;
const count = async (where: string) =>
  (await api(`${P}/stories?where=${encodeURIComponent(where)}`, { key: owner.key })).json
    .totalItems as number;

describe('Idempotency-Key', () => {
  it('a retried JSON create answers the first story again, and there is one', async () => {
    const k = key();
    const send = () =>
      api(`${P}/stories`, {
        key: owner.key,
        method: 'POST',
        body: { text: 'Once in JSON' },
        headers: { 'Idempotency-Key': k },
      });
    const [first, retry] = [await send(), await send()];
    expect(first.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.json).toEqual(first.json);
    // The replay names the one change the first request made (its event id on the change stream).
    expect(first.headers.get('flowboard-changes')).toMatch(/^[0-9a-f-]{36}$/);
    expect(retry.headers.get('flowboard-changes')).toBe(first.headers.get('flowboard-changes'));
    expect(await count('text:"Once in JSON"')).toBe(1);
  });

  it('a retried XML create answers the same XML, and there is one', async () => {
    const k = key();
    const send = () =>
      api(`${P}/stories`, {
        key: owner.key,
        method: 'POST',
        body: '<story><text>Once in XML</text></story>',
        headers: { 'Idempotency-Key': k, 'Content-Type': 'application/xml', Accept: 'application/xml' },
      });
    const [first, retry] = [await send(), await send()];
    expect(first.text).toMatch(/^<\?xml.*<story>/s);
    expect(retry.text).toBe(first.text);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(await count('text:"Once in XML"')).toBe(1);
  });

  it('a retried move records one milestone', async () => {
    const phases = (await api(`${P}?with=phases`, { key: owner.key })).json.phases as Array<{ id: number }>;
    const story = (await api(`${P}/stories`, { key: owner.key, method: 'POST', body: { text: 'Mover' } }))
      .json;
    const k = key();
    for (let i = 0; i < 3; i++) {
      const moved = await api(`${P}/stories/${story.id}`, {
        key: owner.key,
        method: 'PUT',
        body: { phase: phases[2]!.id },
        headers: { 'Idempotency-Key': k },
      });
      expect(moved.status).toBe(200);
    }
    const milestones = (await api(`${P}/stories/${story.id}?with=milestones`, { key: owner.key })).json
      .milestones as unknown[];
    expect(milestones).toHaveLength(2);
  });

  it('the same key with a different body is 422 (JSON and XML problem), and nothing is created', async () => {
    const k = key();
    const first = await api(`${P}/tags`, {
      key: owner.key,
      method: 'POST',
      body: { name: 'idem-a' },
      headers: { 'Idempotency-Key': k },
    });
    expect(first.status).toBe(200);
    const json = await api(`${P}/tags`, {
      key: owner.key,
      method: 'POST',
      body: { name: 'idem-b' },
      headers: { 'Idempotency-Key': k },
    });
    expect(json.status).toBe(422);
    expect(json.json).toMatchObject({ status: 422, type: 'urn:flowboard:problem:idempotency-key-reused' });
    const xml = await api(`${P}/tags`, {
      key: owner.key,
      method: 'POST',
      body: '<tag><name>idem-c</name></tag>',
      headers: { 'Idempotency-Key': k, 'Content-Type': 'application/xml', Accept: 'application/xml' },
    });
    expect(xml.status).toBe(422);
    expect(xml.text).toMatch(/<error>.*<status>422<\/status>/s);
    const names = (await api(`${P}/tags`, { key: owner.key })).json.items.map(
      (t: { name: string }) => t.name,
    );
    expect(names.filter((n: string) => n.startsWith('idem-'))).toEqual(['idem-a']);
  });
});

describe('Idempotency-Key on uploads', () => {
  let T: string;
  beforeAll(async () => {
    const story = await api(`${P}/stories`, {
      key: owner.key,
      method: 'POST',
      body: { text: 'Attached once' },
    });
    T = `${P}/stories/${story.json.id}/attachments`;
  });
  const plans = randomBytes(700_000);
  // fetch picks a new multipart boundary for every request, as clients do: a retry differs from the first there.
  const upload = (k: string, content: Uint8Array = plans, fileName = 'plans.bin') => {
    const body = new FormData();
    body.append(
      'attachment',
      new Blob([new Uint8Array(content)], { type: 'application/octet-stream' }),
      fileName,
    );
    return api(T, { key: owner.key, method: 'POST', body, headers: { 'Idempotency-Key': k } });
  };
  const stored = async () => (await api(T, { key: owner.key })).json.totalItems as number;

  it('a retried upload answers the first attachments again, and the file is stored once', async () => {
    const k = key();
    const first = await upload(k);
    const retry = await upload(k);
    expect(first.status).toBe(200);
    expect(first.json.items).toMatchObject([{ fileName: 'plans.bin', sizeInBytes: plans.length }]);
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.json).toEqual(first.json);
    expect(await stored()).toBe(1);
  });

  it('the same key with another file (content or name) is 422, and nothing more is stored', async () => {
    const k = key();
    expect((await upload(k, plans, 'first.bin')).status).toBe(200);
    const before = await stored();
    const changed = Buffer.from(plans);
    changed.writeUInt8(changed.readUInt8(1000) ^ 1, 1000);
    for (const retry of [await upload(k, changed, 'first.bin'), await upload(k, plans, 'second.bin')]) {
      expect(retry.status).toBe(422);
      expect(retry.json.type).toBe('urn:flowboard:problem:idempotency-key-reused');
    }
    expect(await stored()).toBe(before);
  });
});
