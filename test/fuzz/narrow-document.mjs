// Points the schema fuzzer at the seeded data (test/fuzz/seed.mjs): a copy of the served OpenAPI document whose
// path parameters each accept only the seeded value (`enum`), every DELETE its own spare. Nothing else changes, so
// bodies, queries and headers are generated from the document as served; a path value outside the enum is a
// negative case, and the API must refuse it (404). Usage: node narrow-document.mjs <document.json> > narrowed.json
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
  deletePhase: { phaseId: 'SPARE_PHASE_ID' },
  deleteTask: { taskId: 'SPARE_TASK_ID' },
  deleteComment: { commentId: 'SPARE_COMMENT_ID' },
  deleteAttachment: { attachmentId: 'SPARE_ATTACHMENT_ID' },
  deleteTag: { tag: 'SPARE_TAG' },
  deleteRole: { roleId: 'SPARE_ROLE_ID' },
  deleteInvite: { inviteId: 'SPARE_INVITE_ID' },
  removeMember: { user: 'SPARE_MEMBER' },
  setUserApiKeyEnabled: { keyId: 'SPARE_USER_KEY_ID' },
};

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
