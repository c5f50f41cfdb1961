import type { FilterSet } from '../operation';

/**
 * The document's texts that belong to no one operation: the groups operations are listed under (each operation
 * names its `tag`), and what each filter set accepts. The operations themselves are declared by their resources
 * (resources/*.routes.ts).
 */

/** Filter properties (docs/compat.md §4.2). */
export const FILTERS: Record<FilterSet, string> = {
  story:
    '`id`; `text`, `details` (substring); `color`; `size`; `priority`; `status`; `phase` (name or id); ' +
    '`owner`, `creator` (username, id or display name); `tag` (name or id); `deadline` (`deadline:2011-02-24`, ' +
    '`<` and `>` compare).',
  project: '`name`.',
  role: '`name`.',
  phase: '`name`.',
  user: '`name`, `userName`, `email`.',
};

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
const webhooks = 'Webhooks';
const events = 'Change stream';
const search = 'Search';
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
  {
    name: webhooks,
    description:
      "Flowboard addition: HTTP callbacks for a project's changes, signed (Standard Webhooks), retried for a " +
      'day, with a delivery log.',
  },
  {
    name: events,
    description:
      "Flowboard addition: a project's changes as they happen, as server-sent events or by long-polling (JSON " +
      'or XML), resumable from any position still retained.',
  },
  {
    name: search,
    description:
      "Flowboard addition: ranked full-text search over stories' titles, details, tags, tasks and comments, in " +
      "one project or all of the caller's.",
  },
  { name: operator, description: 'Operator endpoints, authorised by the operator token, not an API key.' },
];
