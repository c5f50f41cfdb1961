import { DomainError } from '@flowboard/service-kit';
import type { boards, membership } from '@flowboard/proto';
import { projectDto } from '../../representation/project.dto';
import type { Call } from '../call';
import type { EnrichmentVocabulary } from '../enrichments';
import { optionalString, requiredString } from '../fields';
import { resource, type Reply } from '../respond';
import type { RouteDeps } from './deps';

// TODO(project-enrichments): `metrics` and `invites` (Admin only; `everything` leaves it out) need RPCs that do
// not exist yet; until then they are unknown (400) rather than silently missing.
export const PROJECT_ENRICHMENTS: EnrichmentVocabulary = { names: ['details', 'members', 'phases', 'roles'] };

export function projectHandlers(deps: RouteDeps) {
  const { membership, boards } = deps;

  /** The project with the requested enrichments; what a create already knows is not fetched again. */
  async function projectView(
    projectId: number,
    enrich: ReadonlySet<string>,
    known: { project?: membership.Project__Output; phases?: boards.Phase__Output[] } = {},
  ) {
    const needsProjectCall = !known.project || enrich.has('roles') || enrich.has('members');
    const [got, phases] = await Promise.all([
      needsProjectCall
        ? membership.getProject({
            project_id: projectId,
            include_roles: enrich.has('roles'),
            include_members: enrich.has('members'),
          })
        : undefined,
      enrich.has('phases') ? (known.phases ?? boards.listPhases(projectId).then((r) => r.phases)) : undefined,
    ]);
    const project = got?.project ?? known.project;
    if (!project) throw new DomainError('Internal', 'GetProject returned no project');
    return projectDto(project, {
      details: enrich.has('details'),
      members: enrich.has('members') ? (got?.members ?? []) : undefined,
      phases,
      roles: enrich.has('roles') ? (got?.roles ?? []) : undefined,
    });
  }

  return {
    /**
     * `POST /api/v1/projects` (api-compat §6): membership creates the project and its roles, then boards its
     * default phases. CreateBoard is idempotent and retried on UNAVAILABLE.
     */
    // TODO(project-saga): if CreateBoard still fails the project exists without phases; a project-created event
    // consumed by boards would close that gap.
    async create(call: Call): Promise<Reply> {
      const fields = (await call.body()).object();
      const request = {
        name: requiredString(fields, 'name'),
        description: optionalString(fields, 'description') ?? '',
        details: optionalString(fields, 'details') ?? '',
      };
      const enrich = call.enrichments(PROJECT_ENRICHMENTS);
      const { project } = await membership.createProject(request);
      if (!project) throw new DomainError('Internal', 'CreateProject returned no project');
      const { phases } = await boards.createBoard(project.id);
      return resource('project', await projectView(project.id, enrich, { project, phases }));
    },

    async get(call: Call): Promise<Reply> {
      const enrich = call.enrichments(PROJECT_ENRICHMENTS);
      return resource('project', await projectView(call.project.projectId, enrich));
    },
  };
}
