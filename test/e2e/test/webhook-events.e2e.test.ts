import { signatureOk, waitFor, WebhookReceiver, type Received } from '@flowboard/testing';
import { api, createProject, signUp, type SignedUp } from './support';

/**
 * Webhook events end to end (issue 17): changes made through the API reach a real HTTP receiver from every
 * publishing service (boards, membership, files) through their outboxes, Kafka and the webhooks service, signed,
 * in order per story, each showing the resource exactly as the API's GET shows it; a receiver that is down for a
 * while still gets everything. Redelivery, ping and the API itself: webhooks-api.e2e.test.ts; takeover after a
 * crash and the retry schedule: the webhooks service's integration tests.
 */
jest.setTimeout(120_000);

interface Payload {
  id: string;
  type: string;
  timestamp: string;
  project: { id: number; name: string };
  actor: Record<string, unknown>;
  story?: { id: number };
  data: Record<string, unknown>;
}

let receiver: WebhookReceiver;
let owner: SignedUp;
let project: { id: number; name: string };
let secret: string;
const P = () => `/api/v1/projects/${project.id}`;

beforeAll(async () => {
  receiver = await WebhookReceiver.start();
  owner = await signUp('wh-events');
  project = await createProject(owner.key, 'Events');
  const webhook = await api(`${P()}/webhooks`, {
    method: 'POST',
    key: owner.key,
    body: { url: receiver.url('/all'), description: 'every event' },
  });
  expect(webhook.status).toBe(200);
  secret = webhook.json.secret;
});
afterAll(async () => {
  await receiver?.close();
});

const payloads = (delivered: Received[]): Payload[] => delivered.map((r) => JSON.parse(r.body) as Payload);

/** Waits until an event matching `until` has arrived; answers every arrived event matching `match`, in order. */
async function eventsUntil(
  match: (p: Payload) => boolean,
  until: (p: Payload) => boolean,
): Promise<Payload[]> {
  return receiver.waitFor((delivered) => {
    const found = payloads(delivered).filter(match);
    return found.some(until) ? found : undefined;
  }, 'the events');
}
const first = async (match: (p: Payload) => boolean) => (await eventsUntil(match, match))[0]!;

const call = async (path: string, init: Parameters<typeof api>[1] = {}) => {
  const res = await api(path, { key: owner.key, ...init });
  if (res.status !== 200) throw new Error(`${init.method ?? 'GET'} ${path} → ${res.status} ${res.text}`);
  return res.json;
};

const ownerRef = () => ({
  id: owner.id,
  name: 'wh-events Tester',
  userName: owner.userName,
  email: owner.email,
});

describe('webhook events', () => {
  it("deliver a story's life in order, signed, each showing the resource as the API's GET does", async () => {
    const phases = (await call(`${P()}?with=phases`)).phases as Array<{ id: number; name: string }>;
    const story = await call(`${P()}/stories`, { method: 'POST', body: { text: 'Build the model home' } });
    const S = `${P()}/stories/${story.id}`;
    const asCreated = await call(`${S}?with=details`);
    await call(S, { method: 'PUT', body: { text: 'Build the model home, quickly' } });
    const asUpdated = await call(`${S}?with=details`);
    await call(S, { method: 'PUT', body: { phase: phases[1]!.id } });
    const asMoved = await call(`${S}?with=details`);
    await call(S, { method: 'PUT', body: { status: 'blocked', blockedReason: 'Termites' } });
    const asBlocked = await call(`${S}?with=details`);
    const task = await call(`${S}/tasks`, { method: 'POST', body: { text: 'Buy a seal' } });
    await call(`${S}/tasks/${task.id}`, { method: 'PUT', body: { status: 'complete' } });
    const taskDone = await call(`${S}/tasks/${task.id}`);
    const comment = await call(`${S}/comments`, { method: 'POST', body: { text: 'Huge mistake' } });
    const tag = await call(`${P()}/tags`, { method: 'POST', body: { name: `urgent-${story.id}` } });
    await call(`${P()}/tags/${tag.id}/stories`, { method: 'POST', body: { id: story.id } });
    await call(S, { method: 'DELETE' });

    const aboutStory = (p: Payload) => (p.story ? p.story.id : p.data.id) === story.id;
    const events = await eventsUntil(aboutStory, (p) => aboutStory(p) && p.type === 'story.deleted');
    expect(events.map((e) => e.type)).toEqual([
      'story.created',
      'story.updated',
      'story.moved',
      'story.blocked',
      'task.created',
      'task.updated',
      'comment.created',
      'story.tagged',
      'story.deleted',
    ]);
    const [created, updated, moved, blocked, taskCreated, taskUpdated, commented, tagged, deleted] = events;

    // The resource as GET shows it (with details), the project with its name, the actor as users are embedded.
    expect(created!.data).toEqual(asCreated);
    expect(updated!.data).toEqual(asUpdated);
    expect(moved!.data).toEqual(asMoved);
    expect(blocked!.data).toEqual(asBlocked);
    expect(deleted!.data).toEqual(asBlocked);
    expect(taskCreated).toMatchObject({ story: { id: story.id }, data: { id: task.id, text: 'Buy a seal' } });
    expect(taskUpdated!.data).toEqual(taskDone);
    expect(commented).toMatchObject({ story: { id: story.id }, data: comment });
    expect(tagged).toMatchObject({ story: { id: story.id }, data: { id: tag.id, name: tag.name } });
    // The actor with the key the changes were made with: the owner's sign-up key, which has no name.
    const ownKey = await call('/api/v1/me/apikeys/current');
    for (const event of events) {
      expect(event.project).toEqual({ id: project.id, name: project.name });
      expect(event.actor).toEqual({ ...ownerRef(), apiKey: { id: ownKey.id, name: '' } });
      expect(Date.parse(event.timestamp)).not.toBeNaN();
    }

    // Signed (Standard Webhooks), and `webhook-id` is the event's id.
    const requests = receiver.received.filter((r) => events.some((e) => e.id === r.headers['webhook-id']));
    expect(requests.length).toBeGreaterThanOrEqual(events.length);
    for (const request of requests) {
      expect(signatureOk(secret, request)).toBe(true);
      expect(JSON.parse(request.body).id).toBe(request.headers['webhook-id']);
    }
  });

  it('deliver membership changes (roles, invites) without secrets, and attachments from files', async () => {
    const role = await call(`${P()}/roles`, {
      method: 'POST',
      body: { name: 'Builders', access: 'readwrite' },
    });
    const invite = await call(`${P()}/invites`, {
      method: 'POST',
      body: { email: `lindsay-${role.id}@example.test`, role: role.id },
    });
    const story = await call(`${P()}/stories`, { method: 'POST', body: { text: 'Plans' } });
    const form = new FormData();
    form.append('file', new Blob(['floor plan'], { type: 'text/plain' }), 'plans.txt');
    const uploaded = await api(`${P()}/stories/${story.id}/attachments`, {
      method: 'POST',
      key: owner.key,
      body: form,
    });
    expect(uploaded.status).toBe(200);
    const attachment = uploaded.json.items[0];

    const roleCreated = await first((p) => p.type === 'role.created' && p.data.id === role.id);
    expect(roleCreated.data).toEqual(await call(`${P()}/roles/${role.id}`));
    const invited = await first((p) => p.type === 'invite.created' && p.data.id === invite.id);
    const { token: _token, ...inviteWithoutToken } = await call(`${P()}/invites/${invite.id}`);
    expect(invited.data).toEqual(inviteWithoutToken);
    expect(JSON.stringify(invited)).not.toContain(invite.token);
    const attached = await first((p) => p.type === 'attachment.created' && p.data.id === attachment.id);
    const { token: _download, ...attachmentWithoutToken } = attachment;
    expect(attached).toMatchObject({ story: { id: story.id }, data: attachmentWithoutToken });
    expect(attached.data).not.toHaveProperty('token');
  });

  it('reach a receiver that was down for a while: failed attempts are logged and retried until it answers', async () => {
    const down = await WebhookReceiver.start();
    down.failing = 503;
    try {
      const webhook = await call(`${P()}/webhooks`, {
        method: 'POST',
        body: { url: down.url(), eventTypes: ['story.created'] },
      });
      const stories: Array<{ id: number }> = [];
      for (const text of ['One', 'Two', 'Three']) {
        stories.push(await call(`${P()}/stories`, { method: 'POST', body: { text } }));
      }
      // Down until it has refused at least two attempts.
      await down.waitFor(() => (down.received.length >= 2 ? true : undefined), 'two refused attempts');
      down.failing = undefined;
      const delivered = await down.waitFor((ok) => {
        const ids = ok.map((r) => (JSON.parse(r.body) as Payload).data.id);
        return stories.every((s) => ids.includes(s.id)) ? ok : undefined;
      }, 'every story.created after the receiver came back');
      // In order: one subject each, but one project's events are ingested in order and retried per subject.
      expect(delivered.length).toBeGreaterThanOrEqual(3);
      for (const request of delivered) expect(signatureOk(webhook.secret, request)).toBe(true);

      // The receiver has the last request before the sender records its answer: wait until nothing is pending.
      const log = await waitFor(
        async () => {
          const page = await call(`${P()}/webhooks/${webhook.id}/deliveries`);
          const items = page.items as Array<Record<string, unknown>>;
          return items.every((d) => d.status !== 'pending') ? items : undefined;
        },
        10_000,
        'the delivery log to settle',
      );
      const retried = log.find((d) =>
        (d.attempts as Array<{ status: string }>).some((a) => a.status === 'failed'),
      );
      expect(retried).toMatchObject({ status: 'succeeded', responseStatusCode: 204 });
      expect(retried!.attempts).toEqual(
        expect.arrayContaining([expect.objectContaining({ status: 'failed', responseStatusCode: 503 })]),
      );
    } finally {
      await down.close();
    }
  });
});
