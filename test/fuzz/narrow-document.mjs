// Points the schema fuzzer at the seeded data (test/fuzz/seed.mjs): a copy of the served OpenAPI document whose
// path parameters, and references to other resources in request bodies, each accept only seeded values (`enum`);
// every DELETE gets its own spare, and the reorders a project of their own. Everything else is generated from the
// document as served. A value outside an enum is a negative case the API must refuse (404 in a path, 400 in a
// body), which is what it does for any unknown id. Usage: node narrow-document.mjs <document.json> > narrowed.json
import { readFileSync } from 'node:fs';

const doc = JSON.parse(readFileSync(process.argv[2], 'utf8'));
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
  deleteTag: { tag: 'SPARE_TAG' },
  deleteRole: { roleId: 'SPARE_ROLE_ID' },
  deleteInvite: { inviteId: 'SPARE_INVITE_ID' },
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
schemas.TagReference = oneOf(tag, env('TAG'), { id: tag }, { name: env('TAG') });
schemas.StoryReference = oneOf(Number(env('STORY_ID')), { id: Number(env('STORY_ID')) });
schemas.InviteCreate.properties.role = oneOf(Number(env('ROLE_ID')), { id: Number(env('ROLE_ID')) });
// The owner stays the fuzzing user (handing the project over would end its owner-only operations).
schemas.ProjectUpdate.properties.owner = oneOf(Number(env('USER_ID')));
schemas.PhaseOrder = oneOf(ids('ORDER_PHASE_IDS'));
schemas.StoryOrder = oneOf(ids('ORDER_STORY_IDS'));
schemas.TaskOrder = oneOf(ids('ORDER_TASK_IDS'));

const deref = (value) => {
  if (!value?.$ref) return value;
  const [, , group, name] = value.$ref.split('/');
  return deref(doc.components[group][name]);
};

for (const operations of Object.values(doc.paths)) {
  for (const operation of Object.values(operations)) {
    if (!operation?.operationId) continue;
    operation.parameters = (operation.parameters ?? []).map((p) => {
      const parameter = deref(p);
      if (parameter.in !== 'path') return p;
      const source = SPARES[operation.operationId]?.[parameter.name] ?? SEEDED[parameter.name];
      if (!source) throw new Error(`no seeded value for path parameter ${parameter.name}`);
      const raw = env(source);
      const value = parameter.schema?.type === 'integer' ? Number(raw) : raw;
      return { ...parameter, schema: { ...parameter.schema, enum: [value] } };
    });
  }
}
process.stdout.write(JSON.stringify(doc));
