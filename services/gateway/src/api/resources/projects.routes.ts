import { DomainError } from '@flowboard/service-kit';
import type { boards, membership } from '@flowboard/proto';
import { projectDto } from '@flowboard/representation';
import type { Call } from '../call';
import type { EnrichmentVocabulary } from '../../wire/enrichments';
import type { EffectiveAccess } from '../../authz/access';
import { invalidField, optionalString, requiredString } from '../../wire/fields';
import { keysetOf, keysetPageDto } from '../../wire/page';
import { empty, page, resource, type Reply } from '../../wire/respond';
import type { RouteDeps } from './deps';
import { userRef } from './user-refs';
import { projectMetricsFor } from './project-metrics';
import { del, get, post, put, resourceOperations } from '../operation';
import { P, V1 } from './paths';

/**
 * `invites` is Admin only and must be asked for by name (docs/compat.md §4.3): `everything` leaves it out for
 * everyone, so a response's shape never depends on the caller's role (strict clients reject extra keys).
 */
export const PROJECT_ENRICHMENTS: EnrichmentVocabulary = {
  names: ['details', 'members', 'metrics', 'phases', 'roles', 'invites'],
  everything: ['details', 'members', 'metrics', 'phases', 'roles'],
};

/** A single project's enrichments, given the caller's access: `invites` by name below Admin → 403. */
function projectEnrichments(call: Call, access: EffectiveAccess): ReadonlySet<string> {
  const enrich = call.enrichments(PROJECT_ENRICHMENTS);
  if (enrich.has('invites') && access !== 'admin')
    throw new DomainError('PermissionDenied', "The 'invites' enrichment needs admin access to the project.");
  return enrich;
}

export function projectHandlers(deps: RouteDeps) {
  const { membership, boards, access, logger } = deps;

  /** The project with the requested enrichments; what a create already knows is not fetched again. */
  async function projectView(
    projectId: number,
    enrich: ReadonlySet<string>,
    known: { project?: membership.Project__Output; phases?: boards.Phase__Output[] } = {},
  ) {
    const needsProjectCall =
      !known.project || enrich.has('roles') || enrich.has('members') || enrich.has('invites');
    const [got, phases, metrics] = await Promise.all([
      needsProjectCall
        ? membership.getProject({
            project_id: projectId,
            include_roles: enrich.has('roles'),
            include_members: enrich.has('members'),
            include_invites: enrich.has('invites'),
          })
        : undefined,
      enrich.has('phases')
        ? (known.phases ?? boards.listPhases({ project_id: projectId }).then((r) => r.phases))
        : undefined,
      projectMetricsFor(boards, [projectId], enrich),
    ]);
    const project = got?.project ?? known.project;
    if (!project) throw new DomainError('Internal', 'GetProject returned no project');
    const dto = projectDto(project, {
      details: enrich.has('details'),
      members: enrich.has('members') ? (got?.members ?? []) : undefined,
      metrics: metrics?.get(projectId),
      phases,
      roles: enrich.has('roles') ? (got?.roles ?? []) : undefined,
      invites: enrich.has('invites') ? (got?.invites ?? []) : undefined,
    });
    return resource('project', dto, project.version);
  }

  return {
    /**
     * `POST /api/v1/projects` (docs/compat.md §6): membership creates the project and its roles, then boards
     * its default phases. CreateBoard is idempotent and retried on UNAVAILABLE; if it still fails, the
     * project is deleted again (a saga's compensation) and the caller gets boards' error: a project without a
     * board would be half-written (no phases, so no story could ever be added), and the client can simply
     * retry the create.
     */
    async create(call: Call): Promise<Reply> {
      const fields = (await call.body()).object();
      const request = {
        name: requiredString(fields, 'name'),
        description: optionalString(fields, 'description') ?? '',
        details: optionalString(fields, 'details') ?? '',
      };
      // The creator owns the new project: admin.
      const enrich = projectEnrichments(call, 'admin');
      const { project } = await membership.createProject(request);
      if (!project) throw new DomainError('Internal', 'CreateProject returned no project');
      const { phases } = await boards.createBoard({ project_id: project.id }).catch(async (err: unknown) => {
        await membership.deleteProject({ project_id: project.id }).catch((undoErr: unknown) =>
          logger.error(
            {
              projectId: project.id,
              err: { message: undoErr instanceof Error ? undoErr.message : String(undoErr) },
            },
            'project created without a board, and deleting it again failed: delete it by hand',
          ),
        );
        throw err;
      });
      return projectView(project.id, enrich, { project, phases });
    },

    async get(call: Call): Promise<Reply> {
      const enrich = projectEnrichments(call, call.project.access);
      return projectView(call.project.projectId, enrich);
    },

    /**
     * `GET /api/v1/projects` (docs/compat.md §5.2): the caller's projects at any access level;
     * `where=name:...`; membership filters and pages (by id, so a cursor is its keyset), and enriches only the
     * page: `metrics` and `phases` are one boards call each for the whole page.
     */
    async list(call: Call): Promise<Reply> {
      const enrich = call.enrichments(PROJECT_ENRICHMENTS);
      const paging = call.paging();
      const { projects, total_items, keyset } = await membership.listProjects({
        where: call.query.get('where') ?? '',
        page: paging.page,
        page_size: paging.pageSize,
        ...keysetOf(paging),
        include_roles: enrich.has('roles'),
        include_members: enrich.has('members'),
        // Membership refuses (403) unless the caller is admin of every project of the page.
        include_invites: enrich.has('invites'),
        // A key limited to some projects lists only those.
        only_project_ids: [...(call.key.scope.projects ?? [])],
      });
      const projectIds = projects.flatMap((entry) => (entry.project ? [entry.project.id] : []));
      const [metrics, phases] = await Promise.all([
        projectMetricsFor(boards, projectIds, enrich),
        enrich.has('phases') && projectIds.length > 0
          ? boards
              .batchListPhases({ project_ids: projectIds })
              .then((r) => new Map(r.projects.map((p) => [p.project_id, p.phases])))
          : undefined,
      ]);
      const items = projects.map((entry) => {
        if (!entry.project) throw new DomainError('Internal', 'ListProjects returned an empty entry');
        return projectDto(entry.project, {
          details: enrich.has('details'),
          members: enrich.has('members') ? entry.members : undefined,
          metrics: metrics?.get(entry.project.id),
          phases: phases ? (phases.get(entry.project.id) ?? []) : undefined,
          roles: enrich.has('roles') ? entry.roles : undefined,
          invites: enrich.has('invites') ? entry.invites : undefined,
        });
      });
      return page('project', keysetPageDto(items, paging, total_items, keyset, 'membership'));
    },

    /**
     * `PUT P` (Admin): `name`, `description`, `details`, `owner` (a user reference; must be a member, else 400).
     * An owner change changes access, so the project's cached access decisions go.
     */
    async update(call: Call): Promise<Reply> {
      const projectId = call.project.projectId;
      const fields = (await call.body()).object();
      const name = optionalString(fields, 'name');
      if (name !== undefined && name.trim() === '') throw invalidField("Field 'name' must not be blank.");
      const description = optionalString(fields, 'description');
      const details = optionalString(fields, 'details');
      const ownerValue = fields.owner;
      const owner =
        ownerValue === undefined || ownerValue === null ? undefined : userRef(ownerValue, "Field 'owner'");
      const enrich = projectEnrichments(call, call.project.access);
      try {
        await membership.updateProject({
          project_id: projectId,
          expected_version: call.expectedVersion(),
          ...(name === undefined ? {} : { name }),
          ...(description === undefined ? {} : { description }),
          ...(details === undefined ? {} : { details }),
          ...(owner ? { owner } : {}),
        });
      } finally {
        // Cached access decisions carry the owner and the project's name (shown in every story): both must go.
        if (owner || name !== undefined) await access.forgetProject(projectId);
      }
      return projectView(projectId, enrich);
    },

    /**
     * `DELETE P` (docs/compat.md §6): the owner only; others who can see the project get 403. membership
     * deletes its rows and publishes `membership.project-deleted.v1` for boards and files to clean up.
     */
    async delete(call: Call): Promise<Reply> {
      if (!call.project.isOwner)
        throw new DomainError('PermissionDenied', 'Only the owner can delete a project.');
      const projectId = call.project.projectId;
      try {
        await membership.deleteProject({ project_id: projectId, expected_version: call.expectedVersion() });
      } finally {
        await access.forgetProject(projectId);
      }
      return empty();
    },
  };
}

/** This resource's operations, each declared once: the router and the OpenAPI document are built from them. */
export const projectOperations = resourceOperations(
  'Projects and members',
  'administration',
  projectHandlers,
  [
    get(`${V1}/projects`, 'listProjects', 'List projects', {
      cursor: true,
      access: 'key',
      group: 'any',
      with: 'project',
      where: 'project',
      ok: { page: 'Project' },
      description: "The caller's projects, at any access level.",
      handler: 'list',
    }),
    post(`${V1}/projects`, 'createProject', 'Create a project', {
      access: 'key',
      reachesNewProject: true,
      with: 'project',
      body: 'ProjectCreate',
      ok: { one: 'Project' },
      addition: true,
      description:
        'The caller becomes the owner and joins a new "Administrators" role; a "Members" role and the ' +
        'default phases are created too.',
      handler: 'create',
    }),
    get(P, 'getProject', 'Get a project', {
      access: 'Read',
      group: 'any',
      conditional: true,
      with: 'project',
      ok: { one: 'Project' },
      handler: 'get',
    }),
    put(P, 'updateProject', 'Update a project', {
      access: 'Admin',
      conditional: true,
      with: 'project',
      body: 'ProjectUpdate',
      ok: { one: 'Project' },
      handler: 'update',
    }),
    // Owner only; the handler refuses other admins with 403 (docs/compat.md §6).
    del(P, 'deleteProject', 'Delete a project', {
      access: 'Admin',
      conditional: true,
      ok: 'empty',
      addition: true,
      description: 'Owner only (other admins get 403). Deletes everything, stored files included.',
      handler: 'delete',
    }),
  ],
);
