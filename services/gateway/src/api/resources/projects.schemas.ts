import {
  arrayOf,
  body,
  int,
  nonBlank,
  pageSchema,
  ref,
  resource,
  str,
  timestamp,
  type ResourceSchemas,
} from '../schema';

/** Projects (projects.routes.ts), with their enrichments. */
export const projectSchemas: ResourceSchemas = {
  responses: {
    Project: resource('project', ['id', 'name', 'description', 'createTime', 'owner'], {
      id: int(),
      name: str(),
      description: str('`""` when empty.'),
      details: str('Markdown; with `with=details`.'),
      createTime: timestamp,
      owner: ref('UserRef'),
      members: arrayOf(ref('UserRef'), 'With `with=members`.'),
      phases: arrayOf(ref('Phase'), 'With `with=phases`, in index order.'),
      roles: arrayOf(ref('Role'), 'With `with=roles`.'),
      invites: arrayOf(ref('Invite'), 'With `with=invites` (Admin only).'),
      metrics: { ...ref('ProjectMetrics'), description: 'With `with=metrics`.' },
    }),
  },
  pages: { ProjectPage: pageSchema('Project', 'projects') },
  requests: {
    ProjectCreate: body('project', { name: nonBlank(200), description: str(), details: str('Markdown.') }, [
      'name',
    ]),
    ProjectUpdate: body('project', {
      name: nonBlank(200),
      description: str(),
      details: str(),
      owner: { ...ref('UserReference'), description: 'The new owner; must be a member.' },
    }),
  },
};
