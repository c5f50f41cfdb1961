import { apiClient, gatewayContract, uniqueSuffix, type OpenApiContract } from '@flowboard/testing';
import { checkContract, GATEWAY_URL, operatorToken, recordExercised, XML_HEADERS } from './support';

/**
 * The OpenAPI document against the running stack: one real request per documented operation (plus error
 * answers), each JSON response validated against the operation's schema for its status. That every documented
 * operation was exercised, here or by another file, operation-coverage.e2e.test.ts checks at the end of the run.
 */
let contract: OpenApiContract;
const api = apiClient(GATEWAY_URL, {
  async onResponse(request, response) {
    await checkContract(request, response);
    await recordExercised(request, response);
  },
});

/** 200, or the test fails with the body (which names what was wrong). */
async function ok(path: string, request: Parameters<typeof api>[1] = {}) {
  const res = await api(path, request);
  if (res.status !== 200) throw new Error(`${request.method ?? 'GET'} ${path} → ${res.status} ${res.text}`);
  return res;
}

describe('responses conform to the OpenAPI document', () => {
  beforeAll(async () => {
    contract = await gatewayContract(GATEWAY_URL);
  });

  it('serves the document without an API key', async () => {
    const res = await fetch(`${GATEWAY_URL}/api/v1/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await res.json()).toMatchObject({ openapi: '3.1.0', paths: expect.any(Object) });
  });

  it('every documented operation answers as documented', async () => {
    const name = `oas-${uniqueSuffix()}`;
    const owner = (
      await ok('/api/v1/users', { method: 'POST', body: { userName: name, email: `${name}@example.test` } })
    ).json;
    const other = (
      await ok('/api/v1/users', {
        method: 'POST',
        body: { userName: `${name}-b`, email: `${name}-b@example.test` },
      })
    ).json;
    const as = { key: owner.apiKey as string };

    // Users, keys, account
    await ok('/api/v1/me?with=stories', as);
    await ok('/api/v1/me', { ...as, method: 'PUT', body: { bio: 'Marketing' } });
    const key = await ok('/api/v1/me/apikeys', { ...as, method: 'POST' });
    const keys = await ok('/api/v1/me/apikeys', as);
    await ok(`/api/v1/me/apikeys/${key.json.id}`, { ...as, method: 'DELETE' });
    await ok('/api/v1/me/account', as);
    const token = operatorToken();
    if (token) {
      await ok(`/api/v1/admin/accounts/${owner.id}`, {
        method: 'PUT',
        headers: { Authorization: `Bearer ${token}` },
        body: { collaboratorLimit: 50 },
      });
      // The switches, set to what they already are, so the rest of the walk is unaffected.
      await ok(`/api/v1/admin/users/${owner.id}`, {
        method: 'PUT',
        headers: { Authorization: `Bearer ${token}` },
        body: { enabled: true },
      });
      await ok(`/api/v1/admin/users/${owner.id}/apikeys/${keys.json.items[0].id}`, {
        method: 'PUT',
        headers: { Authorization: `Bearer ${token}` },
        body: { enabled: true },
      });
    }

    // Projects and members
    const project = await ok('/api/v1/projects?with=everything', {
      ...as,
      method: 'POST',
      body: { name: 'Sudden Valley', description: 'I can see myself marinating a chicken in that.' },
    });
    const P = `/api/v1/projects/${project.json.id}`;
    await ok('/api/v1/projects?with=everything&where=name:"Sudden Valley"', as);
    await ok(`${P}?with=everything`, as);
    await ok(P, { ...as, method: 'PUT', body: { description: 'Caw-ca-caw' } });
    await ok(`${P}/members`, { ...as, method: 'POST', body: other.id });
    await ok(`${P}/members?where=userName:${owner.userName}`, as);
    await ok(`${P}/members/${other.userName}`, as);
    await ok(`${P}/members/${other.id}`, { ...as, method: 'DELETE' });

    // Roles and invites
    const role = await ok(`${P}/roles`, { ...as, method: 'POST', body: { name: 'Readers', access: 'read' } });
    const R = `${P}/roles/${role.json.id}`;
    await ok(`${P}/roles?where=name:Readers`, as);
    await ok(R, as);
    await ok(R, { ...as, method: 'PUT', body: { name: 'Lookers' } });
    await ok(`${R}/members`, { ...as, method: 'POST', body: { userName: other.userName } });
    await ok(`${R}/members`, as);
    await ok(`${R}/members`, { ...as, method: 'PUT', body: [other.id] });
    await ok(`${R}/members/${other.id}`, { ...as, method: 'DELETE' });
    const invite = await ok(`${P}/invites`, {
      ...as,
      method: 'POST',
      body: { email: `${name}-c@example.test`, role: role.json.id },
    });
    await ok(`${P}/invites`, as);
    await ok(`${P}/invites/${invite.json.id}`, as);
    await ok(`/api/v1/invites/${invite.json.token}/accept`, { key: other.apiKey, method: 'POST' });
    const second = await ok(`${P}/invites`, {
      ...as,
      method: 'POST',
      body: { email: `${name}-d@example.test`, role: role.json.id },
    });
    await ok(`${P}/invites/${second.json.id}`, { ...as, method: 'DELETE' });

    // Phases
    const phase = await ok(`${P}/phases`, {
      ...as,
      method: 'POST',
      body: { name: 'Review', description: 'Being reviewed', limit: 3 },
    });
    const PH = `${P}/phases/${phase.json.id}`;
    const phases = await ok(`${P}/phases?with=stories`, as);
    await ok(`${P}/phases`, {
      ...as,
      method: 'PUT',
      body: phases.json.items.map((p: { id: number }) => p.id),
    });
    await ok(`${PH}?with=everything`, as);
    await ok(PH, { ...as, method: 'PUT', body: { limit: null } });

    // Stories
    const story = await ok(`${P}/stories?with=everything`, {
      ...as,
      method: 'POST',
      body: {
        text: 'Build Spec house',
        details: 'Only have 2 weeks to build a spec house.',
        size: 5,
        color: 'teal',
        deadline: '2011-02-24',
        owner: owner.userName,
        tags: ['come on'],
        tasks: [{ text: 'Get George Michael to help' }],
      },
    });
    const S = `${P}/stories/${story.json.id}`;
    await ok(S, { ...as, method: 'PUT', body: { phase: phase.json.id } });
    await ok(`${S}?with=everything`, {
      ...as,
      method: 'PUT',
      body: { status: 'blocked', blockedReason: 'Rain' },
    });
    await ok(`${S}?with=everything`, as);
    await ok(`${P}/stories?with=everything&where=not(color:red)`, as);
    await ok(`${P}/stories?where=color:teal`, { ...as, method: 'PUT', body: { priority: 'High' } });
    await ok(`${PH}/stories?with=tags`, as);
    await ok(`${PH}/stories`, { ...as, method: 'PUT', body: [story.json.id] });
    await ok('/api/v1/me/stories?with=everything', as);
    // The same in XML: the root element is the one the document names (`stories` for a page of stories).
    expect((await ok(`${P}/stories.xml?with=everything`, as)).text).toContain('<stories>');
    await ok(`${S}.xml`, as);
    await ok('/api/v1/me.xml', as);

    // Tags, project-wide and on the story
    const tag = await ok(`${P}/tags?with=stories`, { ...as, method: 'POST', body: { name: 'hop ons' } });
    const TG = `${P}/tags/${tag.json.id}`;
    await ok(`${P}/tags?with=stories`, as);
    await ok(`${P}/tags/come on?with=stories`.replace(' ', '%20'), as);
    await ok(TG, { ...as, method: 'PUT', body: { name: 'solid as a rock' } });
    await ok(`${TG}/stories`, { ...as, method: 'POST', body: story.json.id });
    await ok(`${TG}/stories?with=tags`, as);
    await ok(`${TG}/stories`, { ...as, method: 'PUT', body: [{ id: story.json.id }] });
    await ok(`${TG}/stories/${story.json.id}`, { ...as, method: 'DELETE' });
    await ok(`${S}/tags`, { ...as, method: 'POST', body: { name: 'new one' } });
    await ok(`${S}/tags`, as);
    await ok(`${S}/tags`, { ...as, method: 'PUT', body: ['new one', tag.json.id] });
    await ok(`${S}/tags/${tag.json.id}`, { ...as, method: 'DELETE' });
    await ok(TG, { ...as, method: 'DELETE' });

    // Tasks
    const task = await ok(`${S}/tasks`, {
      ...as,
      method: 'POST',
      body: { text: 'Only build exterior walls' },
    });
    const T = `${S}/tasks/${task.json.id}`;
    const tasks = await ok(`${S}/tasks`, as);
    await ok(`${S}/tasks`, {
      ...as,
      method: 'PUT',
      body: tasks.json.items.map((t: { id: number }) => t.id).reverse(),
    });
    await ok(T, { ...as, method: 'PUT', body: { status: 'complete' } });
    await ok(T, as);
    await ok(T, { ...as, method: 'DELETE' });

    // Comments
    const comment = await ok(`${S}/comments`, {
      ...as,
      method: 'POST',
      body: { text: 'No way in 2 weeks.' },
    });
    const C = `${S}/comments/${comment.json.id}`;
    await ok(`${S}/comments`, as);
    await ok(C, as);
    await ok(C, { ...as, method: 'PUT', body: { text: 'No way in 3 weeks.' } });
    await ok(C, { ...as, method: 'DELETE' });

    // Attachments
    const form = new FormData();
    form.append('attachment', new Blob(['plans'], { type: 'text/plain' }), 'plans.txt');
    const uploaded = await ok(`${S}/attachments`, { ...as, method: 'POST', body: form });
    const A = `${S}/attachments/${uploaded.json.items[0].id}`;
    await ok(`${S}/attachments`, as);
    await ok(A, as);
    await ok(A, { ...as, method: 'PUT', body: { filename: 'plans-v2.txt' } });
    expect((await ok(`${A}/content`, as)).text).toBe('plans');
    await ok(A, { ...as, method: 'DELETE' });

    // Deletes
    await ok(S, { ...as, method: 'DELETE' });
    await ok(PH, { ...as, method: 'DELETE' });
    await ok(R, { ...as, method: 'DELETE' });
    await ok(P, { ...as, method: 'DELETE' });
  });

  it('errors are problem details in both formats', async () => {
    const { json: user } = await ok('/api/v1/users', {
      method: 'POST',
      body: { userName: `oas-${uniqueSuffix()}`, email: `oas-${uniqueSuffix()}@example.test` },
    });
    const as = { key: user.apiKey as string };
    expect((await api('/api/v1/me')).status).toBe(401);
    expect((await api('/api/v1/projects/999999999', as)).status).toBe(404);
    expect((await api('/api/v1/projects?page=0', as)).status).toBe(400);
    expect((await api('/api/v1/me?with=nonsense', as)).status).toBe(400);
    expect((await api('/api/v1/me', { ...as, method: 'DELETE' })).status).toBe(405);
    expect((await api('/api/v1/nowhere', as)).status).toBe(404);
    expect(
      (
        await api('/api/v1/users', {
          method: 'POST',
          body: { userName: user.userName, email: 'x@example.test' },
        })
      ).status,
    ).toBe(409);
    const xml = await api('/api/v1/projects/999999999', { ...as, headers: XML_HEADERS });
    expect(xml.headers.get('content-type')).toBe('application/xml; charset=utf-8');
    expect(xml.text).toMatch(/<error><detail>.*<\/detail><requestId>.+<\/requestId><status>404<\/status>/);
  });

  it('a response that breaks the document fails the check (the check can fail)', () => {
    const problems = contract.check({
      method: 'GET',
      path: '/api/v1/projects/1/stories/2?with=tags',
      status: 200,
      contentType: 'application/json; charset=utf-8',
      json: { id: 2, text: 'x', colour: 'red' },
    });
    expect(problems.join('\n')).toMatch(/Story.*(required|additional)/);
    expect(
      contract.check({
        method: 'GET',
        path: '/api/v1/projects/1/stories.xml',
        status: 200,
        contentType: 'application/xml; charset=utf-8',
        json: undefined,
        text: '<?xml version="1.0" encoding="utf-8"?><story><id>1</id></story>',
      }),
    ).toEqual([expect.stringMatching(/XML root <story>, the document says <stories>/)]);
    expect(contract.template('/api/v1/projects/1/stories/2.xml')).toBe(
      '/api/v1/projects/{projectId}/stories/{storyId}',
    );
  });
});
