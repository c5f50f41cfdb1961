import type { RouteDeps } from '../../../services/gateway/src/api/resources/deps';
import { routeTable } from '../../../services/gateway/src/api/resources';
import { GATEWAY_URL, api, createProject, signUp, type SignedUp } from './support';

/**
 * docs/compat.md §3.2: a project the caller cannot see answers exactly like one that does not exist, on every
 * route. The routes come from the gateway's own table (so a new route is covered the day it is added); a
 * stranger calls each with the ids of a real project full of things, and with an unknown project id, and the
 * two answers must be the same: status, content type, body (less the request id).
 */
jest.setTimeout(120_000);

/** The table only needs its dependencies when a handler runs; listing the routes runs none. */
const inert: RouteDeps = new Proxy(() => inert, {
  get: () => inert,
  apply: () => inert,
}) as unknown as RouteDeps;
const projectRoutes = routeTable(inert).filter((r) => r.pattern.startsWith('/api/v1/projects/:projectId'));

let owner: SignedUp;
let stranger: SignedUp;
let params: Record<string, string>;

beforeAll(async () => {
  [owner, stranger] = await Promise.all([signUp('exist-owner'), signUp('exist-stranger')]);
  const project = await createProject(owner.key);
  const P = `/api/v1/projects/${project.id}`;
  const as = { key: owner.key };
  const ok = <T>(res: { status: number; text: string; json: T }) => {
    if (res.status !== 200) throw new Error(`setup failed: ${res.status} ${res.text}`);
    return res.json;
  };
  const detail = ok(await api(`${P}?with=roles,phases`, as));
  const story = ok(await api(`${P}/stories`, { ...as, method: 'POST', body: { text: 'secret plan' } }));
  const S = `${P}/stories/${story.id}`;
  const task = ok(await api(`${S}/tasks`, { ...as, method: 'POST', body: { text: 'step one' } }));
  const comment = ok(await api(`${S}/comments`, { ...as, method: 'POST', body: { text: 'psst' } }));
  ok(await api(`${S}/tags`, { ...as, method: 'POST', body: { name: 'hush' } }));
  const form = new FormData();
  form.append('attachment', new Blob(['classified']), 'plan.txt');
  const attachment = ok(await api(`${S}/attachments`, { ...as, method: 'POST', body: form }));
  const role = detail.roles.find((r: { name: string }) => r.name === 'Members');
  const invite = ok(
    await api(`${P}/invites`, { ...as, method: 'POST', body: { email: 'spy@example.test', role: role.id } }),
  );
  // Nothing listens on port 9; deactivated after its ping, so nothing is retried.
  const webhook = ok(
    await api(`${P}/webhooks`, { ...as, method: 'POST', body: { url: 'http://127.0.0.1:9/x' } }),
  );
  const ping = ok(await api(`${P}/webhooks/${webhook.id}/ping`, { ...as, method: 'POST' }));
  ok(await api(`${P}/webhooks/${webhook.id}`, { ...as, method: 'PUT', body: { active: false } }));
  params = {
    storyId: String(story.id),
    taskId: String(task.id),
    commentId: String(comment.id),
    attachmentId: String(attachment.id ?? attachment.items?.[0]?.id),
    phaseId: String(detail.phases[0].id),
    roleId: String(role.id),
    inviteId: String(invite.id),
    webhookId: String(webhook.id),
    deliveryId: String(ping.id),
    tag: 'hush',
    user: owner.userName,
  };
  params.existing = String(project.id);
});

function pathFor(pattern: string, projectId: string): string {
  return pattern.replace(/:(\w+)(\(text\))?/g, (_m, name: string) => {
    if (name === 'projectId') return projectId;
    const value = params[name];
    if (value === undefined) throw new Error(`no test value for :${name} in ${pattern}`);
    return encodeURIComponent(value);
  });
}

interface Answer {
  status: number;
  type: string | null;
  body: unknown;
}

async function call(method: string, path: string, accept: string): Promise<Answer> {
  const res = await fetch(`${GATEWAY_URL}${path}`, {
    method,
    headers: { 'X-Zen-ApiKey': stranger.key, Accept: accept, 'Content-Type': 'application/json' },
    body: method === 'POST' || method === 'PUT' ? JSON.stringify({ name: 'x', text: 'x' }) : undefined,
  });
  const text = await res.text();
  const type = res.headers.get('content-type');
  const requestId = res.headers.get('x-request-id') ?? '';
  // The request id is the one part that must differ; everything else must match byte for byte.
  const body = /json/.test(type ?? '')
    ? { ...JSON.parse(text), requestId: undefined }
    : text.replace(requestId, '<requestId>');
  return { status: res.status, type, body };
}

it('covers every project route of the gateway', () => {
  expect(projectRoutes.length).toBeGreaterThan(40);
});

it.each(['application/json', 'application/xml'])(
  'answers a stranger the same for a hidden project as for none, on every route (%s)',
  async (accept) => {
    const unknown = '987654321';
    const differences: string[] = [];
    for (const route of projectRoutes) {
      const hidden = await call(route.method, pathFor(route.pattern, params.existing!), accept);
      const missing = await call(route.method, pathFor(route.pattern, unknown), accept);
      const label = `${route.method} ${route.pattern}`;
      if (hidden.status !== 404) differences.push(`${label}: hidden project answered ${hidden.status}`);
      try {
        expect(hidden).toEqual(missing);
      } catch {
        differences.push(`${label}: ${JSON.stringify(hidden)} vs ${JSON.stringify(missing)}`);
      }
    }
    expect(differences).toEqual([]);
  },
);
