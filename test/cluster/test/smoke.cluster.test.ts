import { createHash } from 'node:crypto';
import { uniqueSuffix, waitForMail } from '@flowboard/testing';
import { api, createBoard, env, signUp, type Board, type SignedUp } from './support';

/**
 * Through the gateway's Service, as a client of the installed chart: every service and every piece of
 * infrastructure takes part (membership: sign-up, projects, invites; boards: stories; files and MinIO: attachments;
 * Kafka and the notifier: the invite's e-mail), in JSON and in XML.
 */
const XML = { Accept: 'application/xml', 'Content-Type': 'application/xml' };
const sha256 = (data: Uint8Array) => createHash('sha256').update(data).digest('hex');

/** The text of a direct child of the document's root element (XML children are in alphabetical order). */
function child(xml: string, name: string): string | undefined {
  let depth = 0;
  for (const tag of xml.matchAll(/<(\/?)([A-Za-z][\w]*)[^>]*?(\/?)>/g)) {
    const [whole, closing, tagName, selfClosing] = tag;
    if (whole.startsWith('<?')) continue;
    if (closing) depth--;
    else {
      if (depth === 1 && tagName === name && !selfClosing) {
        const start = tag.index! + whole.length;
        return xml.slice(start, xml.indexOf(`</${name}>`, start));
      }
      if (!selfClosing) depth++;
    }
  }
  return undefined;
}

let owner: SignedUp;
let board: Board;

beforeAll(async () => {
  owner = await signUp('smoke');
  board = await createBoard(owner.key);
});

describe('the deployed system, through the gateway', () => {
  it('signs up, creates stories and moves one (JSON)', async () => {
    const P = `/api/v1/projects/${board.id}`;
    const ids: number[] = [];
    for (const text of ['first', 'second', 'third']) {
      const res = await api(`${P}/stories`, { method: 'POST', key: owner.key, body: { text } });
      expect(res.status).toBe(200);
      ids.push(res.json.id);
    }
    const moved = await api(`${P}/stories/${ids[1]}`, {
      method: 'PUT',
      key: owner.key,
      body: { phase: board.phases[2] },
    });
    expect(moved.status).toBe(200);
    expect(moved.json.phase.id).toBe(board.phases[2]);
    const page = await api(`${P}/stories`, { key: owner.key });
    expect(page.status).toBe(200);
    expect(page.json.items.map((s: { text: string }) => s.text).sort()).toEqual(['first', 'second', 'third']);
    const read = await api(`${P}/stories/${ids[1]}`, { key: owner.key });
    expect(read.json.phase.id).toBe(board.phases[2]);
  });

  it('does the same in XML', async () => {
    const userName = `smokexml-${uniqueSuffix()}`;
    const signed = await api('/api/v1/users', {
      method: 'POST',
      headers: XML,
      body: `<?xml version="1.0"?><user><userName>${userName}</userName><email>${userName}@example.test</email></user>`,
    });
    expect(signed.status).toBe(200);
    const key = /<apiKey>([0-9a-f]{32})<\/apiKey>/.exec(signed.text)?.[1];
    expect(key).toBeDefined();
    const project = await api('/api/v1/projects', {
      method: 'POST',
      key,
      headers: XML,
      body: '<project><name>XML board</name><description>in a pod</description></project>',
    });
    expect(project.status).toBe(200);
    const projectId = Number(child(project.text, 'id'));
    expect(projectId).toBeGreaterThan(0);
    const story = await api(`/api/v1/projects/${projectId}/stories`, {
      method: 'POST',
      key,
      headers: XML,
      body: '<story><text>An XML story</text><phase><name>working</name></phase></story>',
    });
    expect(story.status).toBe(200);
    expect(story.headers.get('content-type')).toBe('application/xml; charset=utf-8');
    expect(story.text).toContain('<text>An XML story</text>');
    const storyId = child(story.text, 'id');
    expect(storyId).toMatch(/^\d+$/);
    const moved = await api(`/api/v1/projects/${projectId}/stories/${storyId}`, {
      method: 'PUT',
      key,
      headers: XML,
      body: '<story><phase><name>Ready</name></phase></story>',
    });
    expect(moved.status).toBe(200);
    expect(child(moved.text, 'phase')).toMatch(/<name>Ready<\/name>/);
    const read = await api(`/api/v1/projects/${projectId}/stories/${storyId}.xml`, { key });
    expect(read.status).toBe(200);
    expect(read.text).toMatch(/<name>Ready<\/name>/);
  });

  it('uploads an attachment and downloads the same bytes', async () => {
    const P = `/api/v1/projects/${board.id}`;
    const story = await api(`${P}/stories`, {
      method: 'POST',
      key: owner.key,
      body: { text: 'with a file' },
    });
    const data = new Uint8Array(300_000).map((_, i) => (i * 7919) % 251);
    const form = new FormData();
    form.append('attachment', new Blob([data], { type: 'application/octet-stream' }), 'blob.bin');
    const S = `${P}/stories/${story.json.id}`;
    const uploaded = await api(`${S}/attachments`, { method: 'POST', key: owner.key, body: form });
    expect(uploaded.status).toBe(200);
    const attachment = uploaded.json.items[0] as { id: number };
    const res = await fetch(`${env.GATEWAY_URL}${S}/attachments/${attachment.id}/content`, {
      headers: { 'X-Zen-ApiKey': owner.key },
    });
    expect(res.status).toBe(200);
    const body = new Uint8Array(await res.arrayBuffer());
    expect(body.length).toBe(data.length);
    expect(sha256(body)).toBe(sha256(data));
    const xml = await api(`${S}/attachments.xml`, { key: owner.key });
    expect(xml.status).toBe(200);
    expect(xml.text).toContain('<fileName>blob.bin</fileName>');
  });

  it('sends an invite and its e-mail arrives (JSON, then XML)', async () => {
    const P = `/api/v1/projects/${board.id}`;
    const jsonTo = `smoke-json-${uniqueSuffix()}@example.test`;
    const invited = await api(`${P}/invites`, {
      method: 'POST',
      key: owner.key,
      body: { email: jsonTo, role: board.membersRoleId },
    });
    expect(invited.status).toBe(200);
    const xmlTo = `smoke-xml-${uniqueSuffix()}@example.test`;
    const invitedXml = await api(`${P}/invites`, {
      method: 'POST',
      key: owner.key,
      headers: XML,
      body: `<invite><email>${xmlTo}</email><role>${board.membersRoleId}</role></invite>`,
    });
    expect(invitedXml.status).toBe(200);
    expect(invitedXml.text).toContain(`<email>${xmlTo}</email>`);
    for (const to of [jsonTo, xmlTo]) {
      const mail = await waitForMail(env.MAILPIT_URL, to, 60_000);
      expect(mail.To[0]!.Address).toBe(to);
      expect(mail.Text).toContain('http://127.0.0.1:');
    }
  });
});
