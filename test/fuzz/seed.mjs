// Seeds real data for the schema fuzzer (scripts/fuzz.sh) through the API itself, so that the fuzzer's requests
// reach their 2xx paths: a user and key, a project with stories, phases, tags, tasks, comments, an attachment,
// roles, members, invites and webhooks, and a spare of everything a DELETE operation removes (each DELETE gets its own
// target, so one deletion does not turn every other operation into a 404). Prints `export FUZZ_...=` lines.
const GATEWAY = process.env.GATEWAY_URL;
if (!GATEWAY) throw new Error('GATEWAY_URL is not set');
const suffix = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

async function call(path, { method = 'GET', key, body, form } = {}) {
  const headers = {};
  if (key) headers['X-Zen-ApiKey'] = key;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(`${GATEWAY}${path}`, {
    method,
    headers,
    body: form ?? (body === undefined ? undefined : JSON.stringify(body)),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`seed: ${method} ${path} → ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

const signUp = (name) =>
  call('/api/v1/users', {
    method: 'POST',
    body: { userName: `${name}-${suffix}`, email: `${name}-${suffix}@example.test` },
  });

const owner = await signUp('fuzz');
const key = owner.apiKey;
const as = { key };
const member = await signUp('fuzz-member');
const spareMember = await signUp('fuzz-spare');
const project = await call('/api/v1/projects', {
  ...as,
  method: 'POST',
  body: { name: 'Fuzz', description: 'fuzzed' },
});
const spareProject = await call('/api/v1/projects', { ...as, method: 'POST', body: { name: 'Fuzz spare' } });
const P = `/api/v1/projects/${project.id}`;
const phases = (await call(`${P}/phases`, as)).items;
// A phase and a tag to delete live in a project of their own (the reorders list every phase of theirs; `{tag}`
// also takes ids, and a generated one must not delete the tag the other operations use).
const phaseProject = await call('/api/v1/projects', { ...as, method: 'POST', body: { name: 'Fuzz phases' } });
const sparePhase = await call(`/api/v1/projects/${phaseProject.id}/phases`, {
  ...as,
  method: 'POST',
  body: { name: 'Spare', description: 'spare' },
});
// The reorder operations take exact sets (every phase, every story of a phase, every task once); they act on a
// project nothing else writes to, so the sets the document is narrowed to stay true however the fuzzer runs.
const orderProject = await call('/api/v1/projects', { ...as, method: 'POST', body: { name: 'Fuzz order' } });
const OP = `/api/v1/projects/${orderProject.id}`;
const orderPhases = (await call(`${OP}/phases`, as)).items;
const orderStories = [];
for (const text of ['first', 'second'])
  orderStories.push(
    await call(`${OP}/stories`, { ...as, method: 'POST', body: { text, phase: orderPhases[1].id } }),
  );
const orderTasks = [];
for (const text of ['one', 'two'])
  orderTasks.push(
    await call(`${OP}/stories/${orderStories[0].id}/tasks`, { ...as, method: 'POST', body: { text } }),
  );
const story = await call(`${P}/stories`, {
  ...as,
  method: 'POST',
  body: { text: 'Fuzz target', phase: phases[2].id },
});
const spareStory = await call(`${P}/stories`, { ...as, method: 'POST', body: { text: 'Spare' } });
const S = `${P}/stories/${story.id}`;
const task = await call(`${S}/tasks`, { ...as, method: 'POST', body: { text: 'task' } });
const spareTask = await call(`${S}/tasks`, { ...as, method: 'POST', body: { text: 'spare task' } });
const comment = await call(`${S}/comments`, { ...as, method: 'POST', body: { text: 'comment' } });
const spareComment = await call(`${S}/comments`, { ...as, method: 'POST', body: { text: 'spare comment' } });
const upload = async (name) => {
  const form = new FormData();
  form.append('file', new Blob(['fuzz bytes'], { type: 'text/plain' }), name);
  return (await call(`${S}/attachments`, { ...as, method: 'POST', form })).items[0];
};
const attachment = await upload('fuzz.txt');
const spareAttachment = await upload('spare.txt');
const tag = await call(`${P}/tags`, { ...as, method: 'POST', body: { name: `fuzz-${suffix}` } });
const spareTag = await call(`/api/v1/projects/${phaseProject.id}/tags`, {
  ...as,
  method: 'POST',
  body: { name: `spare-${suffix}` },
});
await call(`${P}/tags/${tag.id}/stories`, { ...as, method: 'POST', body: story.id });
const role = await call(`${P}/roles`, { ...as, method: 'POST', body: { name: 'Fuzzers', access: 'read' } });
const spareRole = await call(`${P}/roles`, {
  ...as,
  method: 'POST',
  body: { name: 'Spare', access: 'read' },
});
await call(`${P}/members`, { ...as, method: 'POST', body: member.id });
await call(`${P}/members`, { ...as, method: 'POST', body: spareMember.id });
await call(`${P}/roles/${role.id}/members`, { ...as, method: 'POST', body: member.id });
await call(`${P}/roles/${role.id}/members`, { ...as, method: 'POST', body: spareMember.id });
const invite = await call(`${P}/invites`, {
  ...as,
  method: 'POST',
  body: { email: `invitee-${suffix}@example.test`, role: role.id },
});
const spareInvite = await call(`${P}/invites`, {
  ...as,
  method: 'POST',
  body: { email: `spare-${suffix}@example.test`, role: role.id },
});
// Webhooks to a receiver that is never there (nothing listens on port 9; the stack's webhooks service must allow
// 127.0.0.1). The ping's delivery is cancelled (failed) by the deactivation, so it can be redelivered, and the
// webhook is active again: ping and redelivery refuse an inactive webhook.
const WEBHOOK_URL = 'http://127.0.0.1:9/fuzz';
const webhook = await call(`${P}/webhooks`, { ...as, method: 'POST', body: { url: WEBHOOK_URL } });
const ping = await call(`${P}/webhooks/${webhook.id}/ping`, { ...as, method: 'POST' });
await call(`${P}/webhooks/${webhook.id}`, { ...as, method: 'PUT', body: { active: false } });
await call(`${P}/webhooks/${webhook.id}`, { ...as, method: 'PUT', body: { active: true } });
const spareWebhook = await call(`${P}/webhooks`, { ...as, method: 'POST', body: { url: WEBHOOK_URL } });
const apiKey = await call('/api/v1/me/apikeys', { ...as, method: 'POST' });
// The operator's endpoints act on the spare member (disabling the fuzzer's own user would end the run).
const spareKeys = (await call('/api/v1/me/apikeys', { key: spareMember.apiKey })).items;

const values = {
  API_KEY: key,
  USER_ID: owner.id,
  MEMBER: member.userName,
  SPARE_MEMBER: spareMember.userName,
  PROJECT_ID: project.id,
  SPARE_PROJECT_ID: spareProject.id,
  STORY_ID: story.id,
  SPARE_STORY_ID: spareStory.id,
  PHASE_ID: phases[2].id,
  SPARE_PHASE_ID: sparePhase.id,
  PHASE_PROJECT_ID: phaseProject.id,
  ORDER_PROJECT_ID: orderProject.id,
  ORDER_PHASE_IDS: orderPhases.map((p) => p.id).join(','),
  ORDER_PHASE_ID: orderPhases[1].id,
  ORDER_STORY_IDS: orderStories.map((s) => s.id).join(','),
  ORDER_STORY_ID: orderStories[0].id,
  ORDER_TASK_IDS: orderTasks.map((t) => t.id).join(','),
  MEMBER_ID: member.id,
  TASK_ID: task.id,
  SPARE_TASK_ID: spareTask.id,
  COMMENT_ID: comment.id,
  SPARE_COMMENT_ID: spareComment.id,
  ATTACHMENT_ID: attachment.id,
  SPARE_ATTACHMENT_ID: spareAttachment.id,
  TAG: tag.name,
  TAG_ID: tag.id,
  SPARE_TAG: spareTag.name,
  ROLE_ID: role.id,
  SPARE_ROLE_ID: spareRole.id,
  INVITE_ID: invite.id,
  SPARE_INVITE_ID: spareInvite.id,
  WEBHOOK_URL,
  WEBHOOK_ID: webhook.id,
  SPARE_WEBHOOK_ID: spareWebhook.id,
  DELIVERY_ID: ping.id,
  KEY_ID: apiKey.id,
  SPARE_USER_ID: spareMember.id,
  SPARE_USER_KEY_ID: spareKeys[0].id,
  // A token no invite has: accepting it is a 404, which is all a fuzzer can learn without the e-mail.
  TOKEN: '0'.repeat(32),
};
for (const [name, value] of Object.entries(values))
  console.log(`export FUZZ_${name}=${JSON.stringify(String(value))}`);
