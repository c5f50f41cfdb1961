// Points the schema fuzzer at the seeded data (test/fuzz/seed.mjs): a copy of the served OpenAPI document whose
// path parameters, and references to other resources in request bodies, each accept only seeded values (`enum`);
// every DELETE gets its own spare, and the reorders a project of their own. Everything else is generated from the
// document as served. A value outside an enum is a negative case the API must refuse (404 in a path, 400 in a
// body), which is what it does for any unknown id.
//
// The fuzzer runs twice: once with the JSON request bodies (every mode) and once with the XML ones (positive data
// only). XML carries text alone: a type violation has no XML form (null, false and 5 all arrive as text, which a
// string field rightly takes), and null itself is written as an empty element, which a schema cannot say, so the
// XML copy also leaves the null alternatives out.
//
// The operator's endpoints run in a third pass of their own, last: any user id is theirs to act on (so their path
// ids are examples, not enums), and what they do (disabling users, setting limits to 0) must not reach the others.
//
// Usage: node narrow-document.mjs <document.json> json|xml|operator > narrowed.json
import { readFileSync } from 'node:fs';

const doc = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const pass = process.argv[3];
if (!['json', 'xml', 'operator'].includes(pass))
  throw new Error('usage: narrow-document.mjs <document.json> json|xml|operator');
const format = pass === 'xml' ? 'xml' : 'json';
const MEDIA_TYPE = format === 'json' ? 'application/json' : 'application/xml';
const OPERATOR = /^\/api\/v1\/admin\//;
for (const path of Object.keys(doc.paths))
  if (OPERATOR.test(path) !== (pass === 'operator')) delete doc.paths[path];
const env = (name) => {
  const value = process.env[`FUZZ_${name}`];
  if (value === undefined) throw new Error(`FUZZ_${name} is not set (source the output of seed.mjs)`);
  return value;
};

/** The seeded value of each path parameter, as its schema types it. */
const SEEDED = {
  projectId: 'PROJECT_ID',
  storyId: 'STORY_ID',
  phaseId: 'PHASE_ID',
  taskId: 'TASK_ID',
  commentId: 'COMMENT_ID',
  attachmentId: 'ATTACHMENT_ID',
  roleId: 'ROLE_ID',
  inviteId: 'INVITE_ID',
  webhookId: 'WEBHOOK_ID',
  deliveryId: 'DELIVERY_ID',
  keyId: 'KEY_ID',
  userId: 'SPARE_USER_ID',
  user: 'MEMBER',
  tag: 'TAG',
  token: 'TOKEN',
};
/** What each DELETE (and the operator's endpoints) acts on instead, so it never removes another case's data. */
const SPARES = {
  deleteProject: { projectId: 'SPARE_PROJECT_ID' },
  deleteStory: { storyId: 'SPARE_STORY_ID' },
  deletePhase: { projectId: 'PHASE_PROJECT_ID', phaseId: 'SPARE_PHASE_ID' },
  deleteTask: { taskId: 'SPARE_TASK_ID' },
  deleteComment: { commentId: 'SPARE_COMMENT_ID' },
  deleteAttachment: { attachmentId: 'SPARE_ATTACHMENT_ID' },
  // In a project of its own: `{tag}` also takes ids, and a generated one must not delete the main project's tag.
  deleteTag: { projectId: 'PHASE_PROJECT_ID', tag: 'SPARE_TAG' },
  deleteRole: { roleId: 'SPARE_ROLE_ID' },
  deleteInvite: { inviteId: 'SPARE_INVITE_ID' },
  deleteWebhook: { webhookId: 'SPARE_WEBHOOK_ID' },
  removeMember: { user: 'SPARE_MEMBER' },
  removeRoleMember: { user: 'SPARE_MEMBER' },
  setUserApiKeyEnabled: { keyId: 'SPARE_USER_KEY_ID' },
  reorderPhases: { projectId: 'ORDER_PROJECT_ID' },
  reorderPhaseStories: { projectId: 'ORDER_PROJECT_ID', phaseId: 'ORDER_PHASE_ID' },
  reorderTasks: { projectId: 'ORDER_PROJECT_ID', storyId: 'ORDER_STORY_ID' },
};

const ids = (name) => env(name).split(',').map(Number);
const oneOf = (...values) => ({ enum: values });
/** Request-body references, by schema: each names seeded resources only. */
const schemas = doc.components.schemas;
const member = Number(env('MEMBER_ID'));
schemas.UserReference = oneOf(member, env('MEMBER'), { id: member }, { userName: env('MEMBER') });
schemas.PhaseReference = oneOf(Number(env('PHASE_ID')), { id: Number(env('PHASE_ID')) });
const tag = Number(env('TAG_ID'));
// Tags may also be named anew (an unknown name creates the tag): any name but a positive integer (an id; "0" is a
// name).
const newTagName = {
  ...schemas.TagName.properties.name,
  pattern: `^(?!\\s*0*[1-9]\\d*\\s*$)${schemas.TagName.properties.name.pattern.slice(1)}`,
};
schemas.TagReference = { anyOf: [oneOf(tag, { id: tag }, { name: env('TAG') }), newTagName] };
schemas.StoryReference = oneOf(Number(env('STORY_ID')), { id: Number(env('STORY_ID')) });
schemas.InviteCreate.properties.role = oneOf(Number(env('ROLE_ID')), { id: Number(env('ROLE_ID')) });
// The owner stays the fuzzing user (handing the project over would end its owner-only operations).
schemas.ProjectUpdate.properties.owner = { anyOf: [oneOf(Number(env('USER_ID'))), { type: 'null' }] };
// The exact sets of the reorders; `items` keeps only its XML name (the item references name other resources).
const exactly = (schema, values) => ({ ...schema, items: { xml: schema.items.xml }, ...oneOf(values) });
schemas.PhaseOrder = exactly(schemas.PhaseOrder, ids('ORDER_PHASE_IDS'));
schemas.StoryOrder = exactly(schemas.StoryOrder, ids('ORDER_STORY_IDS'));
schemas.TaskOrder = exactly(schemas.TaskOrder, ids('ORDER_TASK_IDS'));
// A webhook's URL must be one the webhooks service resolves to an address it allows: the seeded one. `active` stays
// true, since ping and redelivery refuse an inactive webhook (400) and a generated update could make it so any time.
const webhookUrl = oneOf(env('WEBHOOK_URL'));
schemas.WebhookCreate.properties.url = webhookUrl;
schemas.WebhookUpdate.properties.url = { anyOf: [webhookUrl, { type: 'null' }] };
for (const name of ['WebhookCreate', 'WebhookUpdate'])
  schemas[name].properties.active = { anyOf: [oneOf(true), { type: 'null' }] };
// Index 1 (just after Backlog) is valid for any phase at any time; higher ones depend on how many phases exist.
for (const name of ['PhaseCreate', 'PhaseUpdate'])
  schemas[name].properties.index = { ...schemas[name].properties.index, ...oneOf(1) };

/** A schema without its null alternatives (the XML copy). */
function withoutNull(schema) {
  if (Array.isArray(schema)) return schema.map(withoutNull);
  if (typeof schema !== 'object' || schema === null) return schema;
  const out = {};
  for (const [key, value] of Object.entries(schema)) {
    if ((key === 'anyOf' || key === 'oneOf') && Array.isArray(value)) {
      const kept = value.filter((alt) => alt?.type !== 'null').map(withoutNull);
      if (kept.length === 1) Object.assign(out, kept[0]);
      else out[key] = kept;
    } else if (key === 'type' && Array.isArray(value)) out.type = value.filter((t) => t !== 'null');
    else if (key === 'enum' && Array.isArray(value)) out.enum = value.filter((v) => v !== null);
    else out[key] = withoutNull(value);
  }
  return out;
}
if (format === 'xml') doc.components.schemas = withoutNull(doc.components.schemas);

const deref = (value) => {
  if (!value?.$ref) return value;
  const [, , group, name] = value.$ref.split('/');
  return deref(doc.components[group][name]);
};

for (const operations of Object.values(doc.paths)) {
  for (const operation of Object.values(operations)) {
    if (!operation?.operationId) continue;
    // One representation of request bodies per run (multipart uploads stay in both).
    const content = operation.requestBody?.content;
    if (content && content[MEDIA_TYPE]) operation.requestBody.content = { [MEDIA_TYPE]: content[MEDIA_TYPE] };
    operation.parameters = (operation.parameters ?? []).map((p) => {
      const parameter = deref(p);
      if (parameter.in !== 'path') return p;
      const source = SPARES[operation.operationId]?.[parameter.name] ?? SEEDED[parameter.name];
      if (!source) throw new Error(`no seeded value for path parameter ${parameter.name}`);
      const raw = env(source);
      // `{tag}` is any tag name: the fuzzer also makes tags, and a value outside an enum could name one of them,
      // so the seeded tag is its example (the examples phase reaches the 2xx paths) rather than its only value.
      if (parameter.name === 'tag' || pass === 'operator')
        return {
          ...parameter,
          examples: { seeded: { value: parameter.schema?.type === 'integer' ? Number(raw) : raw } },
        };
      const value = parameter.schema?.type === 'integer' ? Number(raw) : raw;
      return { ...parameter, schema: { ...parameter.schema, enum: [value] } };
    });
  }
}
// The change stream (`streamProjectEvents`): fuzzed as the long-poll only. Its server-sent events never end, and a
// `wait` longer than the fuzzer's request timeout (10 s) would time out by design: so no `text/event-stream`
// answer, and `wait` up to 5 s.
for (const operations of Object.values(doc.paths)) {
  const stream = Object.values(operations).find((o) => o?.operationId === 'streamProjectEvents');
  if (!stream) continue;
  for (const response of Object.values(stream.responses ?? {}))
    delete response.content?.['text/event-stream'];
  stream.parameters = stream.parameters.map((p) => {
    const parameter = deref(p);
    return parameter.name === 'wait' ? { ...parameter, schema: { ...parameter.schema, maximum: 5 } } : p;
  });
}
process.stdout.write(JSON.stringify(doc));
