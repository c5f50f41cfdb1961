import { createHash } from 'node:crypto';
import { deleteMailTo, uniqueSuffix, waitForMail, searchMail } from '@flowboard/testing';
import {
  api,
  childNames,
  createProject,
  MAILPIT_URL,
  signUp,
  sorted,
  XML_HEADERS,
  type SignedUp,
} from './support';

const JSON_TYPE = 'application/json; charset=utf-8';
const XML_TYPE = 'application/xml; charset=utf-8';

describe('sign-up and /me', () => {
  let alice: SignedUp;
  beforeAll(async () => {
    alice = await signUp('alice');
  });

  it('returns the user record and a 32-hex API key', async () => {
    expect(alice.key).toMatch(/^[0-9a-f]{32}$/);
    const res = await api('/api/v1/me', { key: alice.key });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(JSON_TYPE);
    expect(Object.keys(res.json)).toEqual(['id', 'name', 'userName', 'email', 'bio', 'createTime']);
    expect(res.json).toMatchObject({
      id: alice.id,
      userName: alice.userName,
      email: alice.email,
      name: 'alice Tester',
      bio: '',
    });
    expect(res.json.createTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/);
  });

  it('accepts the key as ?apikey= in any case and as a Bearer token', async () => {
    const query = await api(`/api/v1/me?ApiKey=${alice.key}`);
    expect(query.status).toBe(200);
    expect(query.json.id).toBe(alice.id);
    const bearer = await api('/api/v1/me', {
      headers: { Authorization: `Bearer ${alice.key.toUpperCase()}` },
    });
    expect(bearer.status).toBe(200);
    expect(bearer.json.id).toBe(alice.id);
  });

  it('answers in XML with alphabetical children', async () => {
    const res = await api('/api/v1/me', { key: alice.key, headers: XML_HEADERS });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(XML_TYPE);
    expect(res.text.startsWith('<?xml version="1.0" encoding="utf-8"?>')).toBe(true);
    expect(childNames(res.text, 'user')).toEqual(['bio', 'createTime', 'email', 'id', 'name', 'userName']);
    expect(res.text).toContain(`<userName>${alice.userName}</userName>`);
    expect(res.text).toMatch(/<bio\s*\/>/);
  });

  it('signs up from an XML body', async () => {
    const userName = `xml-${uniqueSuffix()}`;
    const res = await api('/api/v1/users', {
      method: 'POST',
      headers: { 'Content-Type': 'application/xml' },
      body: `<?xml version="1.0"?><user><userName>${userName}</userName><email>${userName}@example.test</email></user>`,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(XML_TYPE);
    expect(res.text).toContain(`<name>${userName}</name>`);
    expect(res.text).toMatch(/<apiKey>[0-9a-f]{32}<\/apiKey>/);
  });

  it('refuses a duplicate user name with 409', async () => {
    const res = await api('/api/v1/users', {
      method: 'POST',
      body: { userName: alice.userName.toUpperCase(), email: `other-${uniqueSuffix()}@example.test` },
    });
    expect(res.status).toBe(409);
    expect(res.json.detail).toMatch(/userName/);
  });
});

describe('errors carry a problem body in the negotiated format', () => {
  it('401 without a key, JSON', async () => {
    const res = await api('/api/v1/me');
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="flowboard"');
    expect(res.json).toMatchObject({ type: 'urn:flowboard:problem:unauthorized', status: 401 });
    expect(res.json.requestId).toBe(res.headers.get('x-request-id'));
  });

  it('401 with an unknown key, XML', async () => {
    const res = await api('/api/v1/me.xml', { key: '0'.repeat(32) });
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toBe(XML_TYPE);
    expect(childNames(res.text, 'error')).toEqual(['detail', 'requestId', 'status', 'title', 'type']);
  });

  it('404 for an unknown project and for a project of someone else, indistinguishably', async () => {
    const owner = await signUp('owner');
    const stranger = await signUp('stranger');
    const project = await createProject(owner.key);
    const unknown = await api('/api/v1/projects/999999999', { key: stranger.key });
    const foreign = await api(`/api/v1/projects/${project.id}`, { key: stranger.key });
    expect(unknown.status).toBe(404);
    expect(foreign.status).toBe(404);
    expect(foreign.json.type).toBe('urn:flowboard:problem:not-found');
    expect(foreign.json.detail).toBe(unknown.json.detail);
    const stories = await api(`/api/v1/projects/${project.id}/stories/1`, {
      key: stranger.key,
      headers: XML_HEADERS,
    });
    expect(stories.status).toBe(404);
    expect(stories.text).toContain('<status>404</status>');
  });

  it('400 for malformed JSON and malformed XML bodies', async () => {
    const user = await signUp('bad-body');
    const json = await api('/api/v1/projects', {
      method: 'POST',
      key: user.key,
      body: '{"name": ',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(json.status).toBe(400);
    expect(json.json.type).toBe('urn:flowboard:problem:invalid-body');
    const xml = await api('/api/v1/projects', {
      method: 'POST',
      key: user.key,
      body: '<project><name>x</nam></project>',
      headers: { 'Content-Type': 'application/xml' },
    });
    expect(xml.status).toBe(400);
    expect(xml.headers.get('content-type')).toBe(XML_TYPE);
    expect(xml.text).toContain('urn:flowboard:problem:invalid-body');
    const doctype = await api('/api/v1/projects', {
      method: 'POST',
      key: user.key,
      headers: { 'Content-Type': 'application/xml' },
      body: '<?xml version="1.0"?><!DOCTYPE p [<!ENTITY x "boom">]><project><name>&x;</name></project>',
    });
    expect(doctype.status).toBe(400);
  });
});

describe('projects, phases, roles and stories', () => {
  let owner: SignedUp;
  let project: { id: number; name: string };
  beforeAll(async () => {
    owner = await signUp('gob');
    project = await createProject(owner.key, 'Sudden Valley');
  });

  it('creates a project with the default phases and roles', async () => {
    const res = await api(`/api/v1/projects/${project.id}?with=phases,roles`, { key: owner.key });
    expect(res.status).toBe(200);
    expect(Object.keys(res.json)).toEqual([
      'id',
      'name',
      'description',
      'createTime',
      'owner',
      'phases',
      'roles',
    ]);
    expect(res.json.owner).toEqual({
      id: owner.id,
      name: 'gob Tester',
      userName: owner.userName,
      email: owner.email,
    });
    expect(res.json.phases.map((p: { name: string; index: number }) => [p.index, p.name])).toEqual([
      [0, 'Backlog'],
      [1, 'Ready'],
      [2, 'Working'],
      [3, 'Complete'],
      [4, 'Archive'],
    ]);
    expect(res.json.phases[0]).not.toHaveProperty('limit');
    expect(res.json.roles.map((r: { name: string; access: string }) => [r.name, r.access])).toEqual([
      ['Administrators', 'admin'],
      ['Members', 'readwrite'],
    ]);
    expect(res.json.roles[0].members).toEqual([res.json.owner]);
    expect(res.json.roles[1].members).toEqual([]);
  });

  it('shows the same project in XML with wrappers, empty limits and alphabetical order', async () => {
    const res = await api(`/api/v1/projects/${project.id}.xml?WITH=phases&with=roles`, { key: owner.key });
    expect(res.status).toBe(200);
    expect(childNames(res.text, 'project')).toEqual([
      'createTime',
      'description',
      'id',
      'name',
      'owner',
      'phases',
      'roles',
    ]);
    expect(childNames(res.text, 'phases')).toEqual(['phase', 'phase', 'phase', 'phase', 'phase']);
    expect(childNames(res.text, 'phase')).toEqual(sorted(['id', 'name', 'description', 'index', 'limit']));
    expect(res.text).toMatch(/<limit\s*\/>/);
    expect(res.text).toMatch(/<members>\s*<user>/);
  });

  it('refuses an unknown enrichment with 400 naming it', async () => {
    const res = await api(`/api/v1/projects/${project.id}?with=phases,colour`, { key: owner.key });
    expect(res.status).toBe(400);
    expect(res.json.type).toBe('urn:flowboard:problem:unknown-enrichment');
    expect(res.json.detail).toContain('colour');
  });

  it('creates stories numbered per project and reads them back', async () => {
    const created = await api(`/api/v1/projects/${project.id}/stories`, {
      method: 'POST',
      key: owner.key,
      body: {
        text: 'Build Spec house',
        size: 5,
        priority: '9',
        color: 'Teal',
        details: 'Only have 2 weeks.',
      },
    });
    expect(created.status).toBe(200);
    expect(created.json).toMatchObject({
      id: 1,
      text: 'Build Spec house',
      size: '5',
      color: 'teal',
      priority: '9',
      status: 'planned',
      project: { id: project.id, name: 'Sudden Valley' },
      phase: { name: 'Backlog' },
      creator: { id: owner.id, userName: owner.userName },
    });
    expect(Object.keys(created.json)).toEqual([
      'id',
      'text',
      'size',
      'color',
      'priority',
      'status',
      'project',
      'phase',
      'creator',
    ]);

    const got = await api(`/api/v1/projects/${project.id}/stories/1?with=details`, { key: owner.key });
    expect(got.status).toBe(200);
    expect(got.json.details).toBe('Only have 2 weeks.');
    expect(Object.keys(got.json)).toEqual([
      'id',
      'text',
      'details',
      'size',
      'color',
      'priority',
      'status',
      'project',
      'phase',
      'creator',
    ]);
  });

  it('creates a story from an XML body into a middle phase', async () => {
    const phases = await api(`/api/v1/projects/${project.id}?with=phases`, { key: owner.key });
    const working = phases.json.phases[2];
    const res = await api(`/api/v1/projects/${project.id}/stories`, {
      method: 'POST',
      key: owner.key,
      headers: { 'Content-Type': 'application/xml', Accept: 'application/xml' },
      body: `<story><text>Buy boat "The Sea Word" &amp; more</text><phase><id>${working.id}</id></phase></story>`,
    });
    expect(res.status).toBe(200);
    expect(res.text).toContain('<text>Buy boat "The Sea Word" &amp; more</text>');
    expect(res.text).toContain('<status>started</status>');
    expect(res.text).toMatch(/<size\s*\/>/);
    expect(childNames(res.text, 'story')).toEqual([
      'color',
      'creator',
      'id',
      'phase',
      'priority',
      'project',
      'size',
      'status',
      'text',
    ]);
  });

  it('404 for a story that does not exist', async () => {
    const res = await api(`/api/v1/projects/${project.id}/stories/424242`, { key: owner.key });
    expect(res.status).toBe(404);
  });
});

describe('invites are e-mailed through the outbox, Kafka and the notifier', () => {
  it('sends one e-mail carrying the token', async () => {
    const owner = await signUp('inviter');
    const project = await createProject(owner.key, 'Chicken Dance');
    const roles = await api(`/api/v1/projects/${project.id}?with=roles`, { key: owner.key });
    const membersRole = roles.json.roles.find((r: { name: string }) => r.name === 'Members');
    const email = `invitee-${uniqueSuffix()}@example.test`;
    await deleteMailTo(MAILPIT_URL, email);

    const res = await api(`/api/v1/projects/${project.id}/invites`, {
      method: 'POST',
      key: owner.key,
      body: { email, role: membersRole.id },
    });
    expect(res.status).toBe(200);
    expect(Object.keys(res.json)).toEqual(['id', 'createTime', 'email', 'token', 'sender', 'role']);
    expect(res.json).toMatchObject({
      email,
      sender: { id: owner.id },
      role: { id: membersRole.id, name: 'Members' },
    });
    expect(res.json.token).toMatch(/^[0-9a-f]{32}$/);

    const mail = await waitForMail(MAILPIT_URL, email, 30_000);
    expect(mail.Subject).toContain('Chicken Dance');
    expect(mail.Text).toContain(res.json.token);
    expect(mail.HTML).toContain(res.json.token);
    await new Promise((r) => setTimeout(r, 1500));
    expect(await searchMail(MAILPIT_URL, email)).toHaveLength(1);
  });

  it('needs admin access: a stranger gets 404 and nothing is sent', async () => {
    const owner = await signUp('inviter2');
    const stranger = await signUp('stranger2');
    const project = await createProject(owner.key);
    const email = `nobody-${uniqueSuffix()}@example.test`;
    const res = await api(`/api/v1/projects/${project.id}/invites`, {
      method: 'POST',
      key: stranger.key,
      body: { email, role: 1 },
    });
    expect(res.status).toBe(404);
  });
});

describe('attachments stream through the gateway to MinIO and back', () => {
  it('uploads two files and downloads the same bytes', async () => {
    const owner = await signUp('uploader');
    const project = await createProject(owner.key);
    await api(`/api/v1/projects/${project.id}/stories`, {
      method: 'POST',
      key: owner.key,
      body: { text: 'has files' },
    });

    const plans = Buffer.from('x'.repeat(3142));
    const binary = Buffer.from(Array.from({ length: 70_000 }, (_, i) => (i * 31) % 256));
    const form = new FormData();
    form.append('attachment', new Blob([plans], { type: 'text/plain' }), 'plans.txt');
    form.append('file', new Blob([binary], { type: 'application/octet-stream' }), 'blob.bin');
    const up = await api(`/api/v1/projects/${project.id}/stories/1/attachments`, {
      method: 'POST',
      key: owner.key,
      body: form,
    });
    expect(up.status).toBe(200);
    expect(up.json).toMatchObject({ page: 1, totalItems: 2, totalPages: 1 });
    const [first, second] = up.json.items;
    expect(first).toMatchObject({ fileName: 'plans.txt', sizeInBytes: 3142, contentType: 'text/plain' });
    expect(second).toMatchObject({ fileName: 'blob.bin', sizeInBytes: 70_000 });
    expect(first.token).toMatch(/^[0-9a-f]{32}$/);

    const sha = (b: Buffer | ArrayBuffer) =>
      createHash('sha256')
        .update(Buffer.from(b as ArrayBuffer))
        .digest('hex');
    for (const [item, bytes] of [
      [first, plans],
      [second, binary],
    ] as const) {
      const res = await fetch(
        `${process.env.GATEWAY_URL}/api/v1/projects/${project.id}/stories/1/attachments/${item.id}/content`,
        {
          headers: { 'X-Zen-ApiKey': owner.key },
        },
      );
      expect(res.status).toBe(200);
      expect(res.headers.get('content-length')).toBe(String(bytes.length));
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('content-disposition')).toContain(`filename="${item.fileName}"`);
      expect(sha(await res.arrayBuffer())).toBe(sha(bytes));
    }
  });

  it('404 for the attachments of a story that does not exist', async () => {
    const owner = await signUp('uploader2');
    const project = await createProject(owner.key);
    const form = new FormData();
    form.append('file', new Blob(['hi']), 'hi.txt');
    const res = await api(`/api/v1/projects/${project.id}/stories/77/attachments`, {
      method: 'POST',
      key: owner.key,
      body: form,
    });
    expect(res.status).toBe(404);
  });
});
