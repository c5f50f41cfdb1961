import { PHASE_ENRICHMENTS } from '../http/routes/phases.routes';
import { PROJECT_ENRICHMENTS } from '../http/routes/projects.routes';
import { STORY_ENRICHMENTS } from '../http/routes/stories.routes';
import { TAG_ENRICHMENTS } from '../http/routes/tags.routes';

/**
 * Every operation of the API, one entry each: the source of the OpenAPI document's `paths`. The gateway's route
 * tables (`http/routes/*.table.ts`) must list exactly these method+path pairs (openapi/document.test.ts).
 * Vocabulary as in the spec: access is the project level needed (`key`: any valid API key, `public`: none,
 * `operator`: the operator token); `with`/`where`/`paged` are the spec's E, F and Pg.
 */

export type HttpMethod = 'get' | 'post' | 'put' | 'delete';
export type Access = 'Read' | 'ReadWrite' | 'Admin' | 'key' | 'public' | 'operator';

/**
 * Enrichment vocabularies: the gateway's own (one source of truth, docs/compat.md §4.3); `none` still takes
 * `with=everything`.
 */
export const ENRICHMENTS = {
  story: STORY_ENRICHMENTS.names,
  project: PROJECT_ENRICHMENTS.names,
  phase: PHASE_ENRICHMENTS.names,
  tag: TAG_ENRICHMENTS.names,
  me: ['stories'],
  none: [],
} as const satisfies Record<string, readonly string[]>;
export type Vocabulary = keyof typeof ENRICHMENTS;

/** Filter properties (docs/compat.md §4.2). */
export const FILTERS = {
  story:
    '`id`; `text`, `details` (substring); `color`; `size`; `priority`; `status`; `phase` (name or id); ' +
    '`owner`, `creator` (username, id or display name); `tag` (name or id); `deadline` (`deadline:2011-02-24`, ' +
    '`<` and `>` compare).',
  project: '`name`.',
  role: '`name`.',
  phase: '`name`.',
  user: '`name`, `userName`, `email`.',
} as const;
export type FilterSet = keyof typeof FILTERS;

export type Success =
  | { one: string } // a resource (schema name)
  | { page: string } // a page of a resource (item schema name)
  | 'empty' // 200, no body
  | 'bytes'; // the stored file

export interface Operation {
  method: HttpMethod;
  path: string;
  operationId: string;
  summary: string;
  tag: string;
  access: Access;
  ok: Success;
  with?: Vocabulary;
  where?: FilterSet;
  /** `page`/`pageSize`; implied by a page answer. */
  paged?: boolean;
  /** A request body schema name. */
  body?: string;
  multipart?: boolean;
  /** Statuses beyond the usual 400/401/403/404 (e.g. 402, 409). */
  errors?: number[];
  description?: string;
  /** A flowboard extension beyond the original API (docs/compat.md §6): labelled as such in the document. */
  addition?: boolean;
}

const V1 = '/api/v1';
const P = `${V1}/projects/{projectId}`;
const S = `${P}/stories/{storyId}`;
const PH = `${P}/phases/{phaseId}`;
const TG = `${P}/tags/{tag}`;
const T = `${S}/tasks/{taskId}`;
const C = `${S}/comments/{commentId}`;
const A = `${S}/attachments/{attachmentId}`;
const R = `${P}/roles/{roleId}`;

type Rest = Omit<Operation, 'method' | 'path' | 'operationId' | 'summary'>;
const op =
  (method: HttpMethod) =>
  (path: string, operationId: string, summary: string, rest: Rest): Operation => ({
    method,
    path,
    operationId,
    summary,
    ...rest,
  });
const get = op('get');
const post = op('post');
const put = op('put');
const del = op('delete');

const users = 'Users and API keys';
const projects = 'Projects and members';
const stories = 'Stories';
const phases = 'Phases';
const tags = 'Tags';
const tasks = 'Tasks';
const comments = 'Comments';
const attachments = 'Attachments';
const roles = 'Roles';
const invites = 'Invites';
const operator = 'Operator';

export const TAGS: Array<{ name: string; description: string }> = [
  { name: users, description: 'Sign-up, the current user (`/me`), their stories, account and API keys.' },
  { name: projects, description: 'Projects and their members.' },
  { name: stories, description: 'Stories (cards). Story ids are per project.' },
  { name: phases, description: 'Phases (board columns). Backlog is first and Archive last, always.' },
  { name: tags, description: 'Project tags, and the tags of one story.' },
  { name: tasks, description: 'The tasks of a story.' },
  { name: comments, description: 'The comments of a story.' },
  { name: attachments, description: 'Files attached to a story.' },
  { name: roles, description: 'Roles give their members an access level on the project.' },
  { name: invites, description: 'E-mail invitations to a role.' },
  { name: operator, description: 'Operator endpoints, authorised by the operator token, not an API key.' },
];

export const OPERATIONS: Operation[] = [
  // Users, /me, API keys, accounts
  post(`${V1}/users`, 'signUp', 'Sign up', {
    tag: users,
    access: 'public',
    body: 'SignUpRequest',
    ok: { one: 'SignedUpUser' },
    errors: [409],
    addition: true,
    description: 'Creates a user and a first API key. 404 when sign-up is switched off.',
  }),
  get(`${V1}/me`, 'getMe', 'Get the current user', {
    tag: users,
    access: 'key',
    with: 'me',
    ok: { one: 'User' },
  }),
  put(`${V1}/me`, 'updateMe', 'Update the current user', {
    tag: users,
    access: 'key',
    with: 'none',
    body: 'MeUpdate',
    ok: { one: 'User' },
    errors: [409],
  }),
  get(`${V1}/me/stories`, 'listMyStories', 'List my stories', {
    tag: users,
    access: 'key',
    with: 'story',
    where: 'story',
    ok: { page: 'Story' },
    description: 'The stories the caller owns, in every project where the caller has Read or better.',
  }),
  get(`${V1}/me/account`, 'getMyAccount', 'Get my account', {
    tag: users,
    access: 'key',
    ok: { one: 'Account' },
    addition: true,
    description: 'The limits and usage of the account holding the projects the caller owns.',
  }),
  get(`${V1}/me/apikeys`, 'listApiKeys', 'List my API keys', {
    tag: users,
    access: 'key',
    ok: { page: 'ApiKey' },
    addition: true,
  }),
  post(`${V1}/me/apikeys`, 'createApiKey', 'Create an API key', {
    tag: users,
    access: 'key',
    ok: { one: 'ApiKey' },
    addition: true,
    description: 'No body. The full `key` is in this response only.',
  }),
  del(`${V1}/me/apikeys/{keyId}`, 'deleteApiKey', 'Delete an API key', {
    tag: users,
    access: 'key',
    ok: 'empty',
    addition: true,
  }),
  put(`${V1}/admin/accounts/{userId}`, 'updateAccount', "Set an account's limits", {
    tag: operator,
    access: 'operator',
    body: 'AccountLimits',
    ok: { one: 'Account' },
    addition: true,
    description: 'Overrides the configured default limits of the account of `userId`; `null` resets one.',
  }),
  put(`${V1}/admin/users/{userId}`, 'setUserEnabled', 'Disable or enable a user', {
    tag: operator,
    access: 'operator',
    body: 'UserEnabled',
    ok: { one: 'UserStatus' },
    addition: true,
    description:
      "`enabled: false`: every API key of the user is refused (401) from the very next request, the keys' own " +
      'state unchanged; `true` makes them work again at once. Answers the full user record plus `enabled`.',
  }),
  put(`${V1}/admin/users/{userId}/apikeys/{keyId}`, 'setUserApiKeyEnabled', 'Disable or enable an API key', {
    tag: operator,
    access: 'operator',
    body: 'ApiKeyEnabled',
    ok: { one: 'ApiKey' },
    addition: true,
    description:
      "A disabled key is refused (401) from the very next request; the user's other keys keep working. A key " +
      'of another user is 404. Answers the key as `GET /me/apikeys` shows it.',
  }),

  // Projects and members
  get(`${V1}/projects`, 'listProjects', 'List projects', {
    tag: projects,
    access: 'key',
    with: 'project',
    where: 'project',
    ok: { page: 'Project' },
    description: "The caller's projects, at any access level.",
  }),
  post(`${V1}/projects`, 'createProject', 'Create a project', {
    tag: projects,
    access: 'key',
    with: 'project',
    body: 'ProjectCreate',
    ok: { one: 'Project' },
    addition: true,
    description:
      'The caller becomes the owner and joins a new "Administrators" role; a "Members" role and the default ' +
      'phases are created too.',
  }),
  get(P, 'getProject', 'Get a project', {
    tag: projects,
    access: 'Read',
    with: 'project',
    ok: { one: 'Project' },
  }),
  put(P, 'updateProject', 'Update a project', {
    tag: projects,
    access: 'Admin',
    with: 'project',
    body: 'ProjectUpdate',
    ok: { one: 'Project' },
  }),
  del(P, 'deleteProject', 'Delete a project', {
    tag: projects,
    access: 'Admin',
    ok: 'empty',
    addition: true,
    description: 'Owner only (other admins get 403). Deletes everything, stored files included.',
  }),
  get(`${P}/members`, 'listMembers', 'List members', {
    tag: projects,
    access: 'Read',
    where: 'user',
    ok: { page: 'User' },
  }),
  post(`${P}/members`, 'addMember', 'Add a member', {
    tag: projects,
    access: 'Admin',
    body: 'UserReference',
    ok: { page: 'User' },
    errors: [402],
    description: 'The user joins the project and its "Members" role, if any. Answers the members page.',
  }),
  get(`${P}/members/{user}`, 'getMember', 'Get a member', {
    tag: projects,
    access: 'Read',
    ok: { one: 'User' },
  }),
  del(`${P}/members/{user}`, 'removeMember', 'Remove a member', {
    tag: projects,
    access: 'Admin',
    ok: 'empty',
    errors: [409],
    description: 'Removes the user from the project and all its roles; removing the owner → 409.',
  }),

  // Stories
  get(`${P}/stories`, 'listStories', 'List stories', {
    tag: stories,
    access: 'Read',
    with: 'story',
    where: 'story',
    ok: { page: 'Story' },
    description: 'By phase index, then board position.',
  }),
  post(`${P}/stories`, 'createStory', 'Create a story', {
    tag: stories,
    access: 'ReadWrite',
    with: 'story',
    body: 'StoryCreate',
    ok: { one: 'Story' },
  }),
  put(`${P}/stories`, 'updateStories', 'Update the stories matching a filter', {
    tag: stories,
    access: 'ReadWrite',
    with: 'story',
    where: 'story',
    body: 'StoryUpdate',
    ok: { page: 'Story' },
    description:
      '`where` is required (match all with a tautology such as `not(color:red)`). All or nothing: if any ' +
      'story fails, nothing changes (400). Answers a page of the affected stories.',
  }),
  get(S, 'getStory', 'Get a story', { tag: stories, access: 'Read', with: 'story', ok: { one: 'Story' } }),
  put(S, 'updateStory', 'Update a story', {
    tag: stories,
    access: 'ReadWrite',
    with: 'story',
    body: 'StoryUpdate',
    ok: { one: 'Story' },
  }),
  del(S, 'deleteStory', 'Delete a story', {
    tag: stories,
    access: 'ReadWrite',
    ok: 'empty',
    description: 'Deletes its tasks, comments, attachments and tag links too.',
  }),

  // Phases
  get(`${P}/phases`, 'listPhases', 'List phases', {
    tag: phases,
    access: 'Read',
    with: 'phase',
    where: 'phase',
    ok: { page: 'Phase' },
  }),
  post(`${P}/phases`, 'createPhase', 'Create a phase', {
    tag: phases,
    access: 'Admin',
    with: 'phase',
    body: 'PhaseCreate',
    ok: { one: 'Phase' },
  }),
  put(`${P}/phases`, 'reorderPhases', 'Reorder phases', {
    tag: phases,
    access: 'Admin',
    with: 'phase',
    body: 'PhaseOrder',
    ok: { page: 'Phase' },
  }),
  get(PH, 'getPhase', 'Get a phase', { tag: phases, access: 'Read', with: 'phase', ok: { one: 'Phase' } }),
  put(PH, 'updatePhase', 'Update a phase', {
    tag: phases,
    access: 'Admin',
    with: 'phase',
    body: 'PhaseUpdate',
    ok: { one: 'Phase' },
  }),
  del(PH, 'deletePhase', 'Delete a phase', {
    tag: phases,
    access: 'Admin',
    ok: 'empty',
    errors: [409],
    description: 'Backlog and Archive cannot be deleted (400); a phase holding stories → 409.',
  }),
  get(`${PH}/stories`, 'listPhaseStories', 'List the stories of a phase', {
    tag: phases,
    access: 'Read',
    with: 'story',
    where: 'story',
    paged: true,
    ok: { one: 'Phase' },
    description: 'The phase object with a `stories` array in board order (not a page; no totals).',
  }),
  put(`${PH}/stories`, 'reorderPhaseStories', 'Reorder the stories of a phase', {
    tag: phases,
    access: 'ReadWrite',
    body: 'StoryOrder',
    ok: { one: 'Phase' },
  }),

  // Tags
  get(`${P}/tags`, 'listTags', 'List tags', { tag: tags, access: 'Read', with: 'tag', ok: { page: 'Tag' } }),
  post(`${P}/tags`, 'createTag', 'Create a tag', {
    tag: tags,
    access: 'ReadWrite',
    with: 'tag',
    body: 'TagName',
    ok: { one: 'Tag' },
    errors: [409],
  }),
  get(TG, 'getTag', 'Get a tag', { tag: tags, access: 'Read', with: 'tag', ok: { one: 'Tag' } }),
  put(TG, 'renameTag', 'Rename a tag', {
    tag: tags,
    access: 'ReadWrite',
    with: 'tag',
    body: 'TagRename',
    ok: { one: 'Tag' },
    errors: [409],
  }),
  del(TG, 'deleteTag', 'Delete a tag', { tag: tags, access: 'ReadWrite', ok: 'empty' }),
  get(`${TG}/stories`, 'listTagStories', 'List the stories carrying a tag', {
    tag: tags,
    access: 'Read',
    with: 'story',
    where: 'story',
    ok: { page: 'Story' },
  }),
  post(`${TG}/stories`, 'tagStory', 'Apply a tag to a story', {
    tag: tags,
    access: 'ReadWrite',
    with: 'story',
    body: 'StoryReference',
    ok: { page: 'Story' },
    description: 'One story reference (an array → 400). Answers the page of stories carrying the tag.',
  }),
  put(`${TG}/stories`, 'setTagStories', 'Set the stories carrying a tag', {
    tag: tags,
    access: 'ReadWrite',
    with: 'story',
    body: 'StoryReferences',
    ok: { page: 'Story' },
  }),
  del(`${TG}/stories/{storyId}`, 'untagStory', 'Remove a tag from a story', {
    tag: tags,
    access: 'ReadWrite',
    ok: 'empty',
  }),
  get(`${S}/tags`, 'listStoryTags', "List a story's tags", {
    tag: tags,
    access: 'Read',
    ok: { page: 'Tag' },
  }),
  post(`${S}/tags`, 'addStoryTag', 'Add a tag to a story', {
    tag: tags,
    access: 'ReadWrite',
    body: 'TagReference',
    ok: { page: 'Tag' },
    addition: true,
    description: "One tag reference; an unknown name creates the tag. Answers the page of the story's tags.",
  }),
  put(`${S}/tags`, 'setStoryTags', "Set a story's tags", {
    tag: tags,
    access: 'ReadWrite',
    body: 'TagReferences',
    ok: { page: 'Tag' },
    addition: true,
  }),
  del(`${S}/tags/{tag}`, 'removeStoryTag', 'Remove a tag from a story', {
    tag: tags,
    access: 'ReadWrite',
    ok: 'empty',
    addition: true,
  }),

  // Tasks
  get(`${S}/tasks`, 'listTasks', 'List tasks', { tag: tasks, access: 'Read', ok: { page: 'Task' } }),
  post(`${S}/tasks`, 'createTask', 'Create a task', {
    tag: tasks,
    access: 'ReadWrite',
    body: 'TaskCreate',
    ok: { one: 'Task' },
  }),
  put(`${S}/tasks`, 'reorderTasks', 'Reorder tasks', {
    tag: tasks,
    access: 'ReadWrite',
    body: 'TaskOrder',
    ok: { page: 'Task' },
  }),
  get(T, 'getTask', 'Get a task', { tag: tasks, access: 'Read', ok: { one: 'Task' } }),
  put(T, 'updateTask', 'Update a task', {
    tag: tasks,
    access: 'ReadWrite',
    body: 'TaskUpdate',
    ok: { one: 'Task' },
  }),
  del(T, 'deleteTask', 'Delete a task', { tag: tasks, access: 'ReadWrite', ok: 'empty' }),

  // Comments
  get(`${S}/comments`, 'listComments', 'List comments', {
    tag: comments,
    access: 'Read',
    ok: { page: 'Comment' },
  }),
  post(`${S}/comments`, 'createComment', 'Create a comment', {
    tag: comments,
    access: 'ReadWrite',
    body: 'CommentText',
    ok: { one: 'Comment' },
  }),
  get(C, 'getComment', 'Get a comment', { tag: comments, access: 'Read', ok: { one: 'Comment' } }),
  put(C, 'updateComment', 'Update a comment', {
    tag: comments,
    access: 'ReadWrite',
    body: 'CommentUpdate',
    ok: { one: 'Comment' },
    description: "Only the comment's author (others → 403).",
  }),
  del(C, 'deleteComment', 'Delete a comment', { tag: comments, access: 'ReadWrite', ok: 'empty' }),

  // Attachments
  get(`${S}/attachments`, 'listAttachments', 'List attachments', {
    tag: attachments,
    access: 'Read',
    ok: { page: 'Attachment' },
  }),
  post(`${S}/attachments`, 'uploadAttachments', 'Upload attachments', {
    tag: attachments,
    access: 'ReadWrite',
    multipart: true,
    body: 'AttachmentUpload',
    ok: { page: 'Attachment' },
    errors: [402, 413],
    description:
      'Answers a page of the attachments created. Over the storage limit → 402 and nothing is stored.',
  }),
  get(A, 'getAttachment', 'Get an attachment', {
    tag: attachments,
    access: 'Read',
    ok: { one: 'Attachment' },
  }),
  put(A, 'renameAttachment', 'Rename an attachment', {
    tag: attachments,
    access: 'ReadWrite',
    body: 'AttachmentRename',
    ok: { one: 'Attachment' },
  }),
  del(A, 'deleteAttachment', 'Delete an attachment', { tag: attachments, access: 'ReadWrite', ok: 'empty' }),
  get(`${A}/content`, 'downloadAttachment', 'Download an attachment', {
    tag: attachments,
    access: 'Read',
    ok: 'bytes',
    addition: true,
    description:
      "The bytes, with the attachment's `contentType`, `Content-Disposition: attachment` and " +
      '`X-Content-Type-Options: nosniff`.',
  }),

  // Roles
  get(`${P}/roles`, 'listRoles', 'List roles', {
    tag: roles,
    access: 'Read',
    where: 'role',
    ok: { page: 'Role' },
  }),
  post(`${P}/roles`, 'createRole', 'Create a role', {
    tag: roles,
    access: 'Admin',
    body: 'RoleCreate',
    ok: { one: 'Role' },
  }),
  get(R, 'getRole', 'Get a role', { tag: roles, access: 'Read', ok: { one: 'Role' } }),
  put(R, 'updateRole', 'Update a role', {
    tag: roles,
    access: 'Admin',
    body: 'RoleUpdate',
    ok: { one: 'Role' },
  }),
  del(R, 'deleteRole', 'Delete a role', { tag: roles, access: 'Admin', ok: 'empty' }),
  get(`${R}/members`, 'listRoleMembers', "List a role's members", {
    tag: roles,
    access: 'Read',
    where: 'user',
    ok: { page: 'User' },
  }),
  post(`${R}/members`, 'addRoleMember', 'Add a member to a role', {
    tag: roles,
    access: 'Admin',
    body: 'UserReference',
    ok: { page: 'User' },
    errors: [402],
  }),
  put(`${R}/members`, 'setRoleMembers', "Set a role's members", {
    tag: roles,
    access: 'Admin',
    body: 'UserReferences',
    ok: { page: 'User' },
    errors: [402],
  }),
  del(`${R}/members/{user}`, 'removeRoleMember', 'Remove a member from a role', {
    tag: roles,
    access: 'Admin',
    ok: { page: 'User' },
    description: "Answers the page of the role's remaining members (not an empty body).",
  }),

  // Invites
  get(`${P}/invites`, 'listInvites', 'List invites', {
    tag: invites,
    access: 'Admin',
    ok: { page: 'Invite' },
  }),
  post(`${P}/invites`, 'createInvite', 'Invite someone', {
    tag: invites,
    access: 'Admin',
    body: 'InviteCreate',
    ok: { one: 'Invite' },
    errors: [402, 409],
    description:
      'Sends an e-mail with the token (asynchronously). A pending invite counts as a collaborator.',
  }),
  get(`${P}/invites/{inviteId}`, 'getInvite', 'Get an invite', {
    tag: invites,
    access: 'Admin',
    ok: { one: 'Invite' },
  }),
  del(`${P}/invites/{inviteId}`, 'deleteInvite', 'Delete an invite', {
    tag: invites,
    access: 'Admin',
    ok: 'empty',
  }),
  post(`${V1}/invites/{token}/accept`, 'acceptInvite', 'Accept an invite', {
    tag: invites,
    access: 'key',
    with: 'none',
    ok: { one: 'Project' },
    errors: [402],
    addition: true,
    description:
      "Adds the caller to the invite's role and deletes the invite; answers the project. Unknown or expired → 404.",
  }),
];
