import { DomainError } from '@flowboard/service-kit';
import type { boards } from '@flowboard/proto';
import { type Dto, phaseDto } from '@flowboard/representation';
import { keysetOf, keysetPageDto, pageOf, pageOnly } from '../../wire/page';
import type { Fields } from '../../wire/body';
import type { Call } from '../call';
import type { EnrichmentVocabulary } from '../../wire/enrichments';
import { invalidField, optionalInteger, optionalString, requiredString } from '../../wire/fields';
import { empty, page, resource, type Reply } from '../../wire/respond';
import type { RouteDeps } from './deps';
import { STORY_ENRICHMENTS, filterUsers, servableFromCache, storyDtosFor } from './story-views';
import { del, get, post, put, resourceOperations } from '../operation';
import { P } from './paths';

/** `with=stories`: every story of the phase, in board order (docs/compat.md §4.3). */
export const PHASE_ENRICHMENTS: EnrichmentVocabulary = { names: ['stories'] };

/** ListStories pages through a whole board at this size for `with=stories`. */
const STORIES_BATCH = 1000;

const invalidBody = (message: string) =>
  new DomainError('InvalidArgument', message, { problem: 'invalid-body' });

/** `limit`: a positive integer; null or "" removes it (wire 0). Undefined when absent. */
function limitField(fields: Fields): number | undefined {
  const limit = optionalInteger(fields, 'limit');
  if (limit === undefined) return undefined;
  if (limit === null) return 0;
  if (limit < 1 || limit > 2_147_483_647) {
    throw invalidField("Field 'limit' must be a positive integer, or null to remove it.");
  }
  return limit;
}

/** `index`: an integer; null or "" means "not given". */
function indexField(fields: Fields): number | undefined {
  const index = optionalInteger(fields, 'index');
  if (index === undefined || index === null) return undefined;
  if (index < -2_147_483_648 || index > 2_147_483_647) throw invalidField("Field 'index' is out of range.");
  return index;
}

/** An id from an array item: `12`, `"12"` or `{id: 12}` (XML: `<phase><id>12</id></phase>`). */
function idOf(item: unknown, what: string): number {
  const raw = typeof item === 'object' && item !== null && !Array.isArray(item) ? (item as Fields).id : item;
  const n =
    typeof raw === 'number' ? raw : typeof raw === 'string' && /^\s*\d+\s*$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(n) || n <= 0) {
    throw invalidBody(`Each item must be a ${what} id or an object with 'id'.`);
  }
  return n;
}

export function phaseHandlers(deps: RouteDeps) {
  const { boards, membership } = deps;

  /** Every story of the board in board order, grouped by phase id (for `with=stories`). */
  async function storiesByPhase(call: Call): Promise<Map<number, Dto[]>> {
    const all: boards.Story__Output[] = [];
    for (let n = 1; ; n++) {
      const { stories, total_items } = await boards.listStories({
        project_id: call.project.projectId,
        where: '',
        page: n,
        page_size: STORIES_BATCH,
        users: [],
      });
      all.push(...stories);
      if (stories.length === 0 || n * STORIES_BATCH >= total_items) break;
    }
    const dtos = await storyDtosFor(deps, call, all, new Set());
    const byPhase = new Map<number, Dto[]>();
    all.forEach((story, i) => {
      const id = story.phase?.id ?? 0;
      const list = byPhase.get(id) ?? [];
      list.push(dtos[i] as Dto);
      byPhase.set(id, list);
    });
    return byPhase;
  }

  async function phaseReply(call: Call, phase: boards.Phase__Output | null, enrich: ReadonlySet<string>) {
    if (!phase) throw new DomainError('Internal', 'boards returned no phase');
    const dto = phaseDto(phase);
    if (enrich.has('stories')) dto.stories = (await storiesByPhase(call)).get(phase.id) ?? [];
    return resource('phase', dto, phase.version);
  }

  async function phasesPage(call: Call, phases: boards.Phase__Output[], enrich: ReadonlySet<string>) {
    const byPhase = enrich.has('stories') ? await storiesByPhase(call) : undefined;
    const dtos = phases.map((p) => {
      const dto = phaseDto(p);
      if (byPhase) dto.stories = byPhase.get(p.id) ?? [];
      return dto;
    });
    return page('phase', pageOf(dtos, call.paging()));
  }

  /** The phase with its `stories` array (docs/compat.md §5.4). */
  async function phaseWithStories(
    call: Call,
    phase: boards.Phase__Output | null,
    stories: boards.Story__Output[],
    enrich: ReadonlySet<string>,
  ): Promise<Reply> {
    if (!phase) throw new DomainError('Internal', 'boards returned no phase');
    return resource('phase', {
      ...phaseDto(phase),
      stories: await storyDtosFor(deps, call, stories, enrich),
    });
  }

  return {
    /** `GET P/phases` (E, F, Pg). */
    async list(call: Call): Promise<Reply> {
      const enrich = call.enrichments(PHASE_ENRICHMENTS);
      call.paging(); // bad paging is a 400 before any call
      const { phases } = await boards.listPhases({
        project_id: call.project.projectId,
        where: call.query.get('where') ?? '',
      });
      return phasesPage(call, phases, enrich);
    },

    async get(call: Call): Promise<Reply> {
      const enrich = call.enrichments(PHASE_ENRICHMENTS);
      const { phase } = await boards.getPhase({
        project_id: call.project.projectId,
        phase_id: call.id('phaseId'),
      });
      return phaseReply(call, phase, enrich);
    },

    /** `POST P/phases`: `name` and `description` required; `index` defaults to just before Archive. */
    async create(call: Call): Promise<Reply> {
      const enrich = call.enrichments(PHASE_ENRICHMENTS);
      const fields = (await call.body()).object();
      const name = requiredString(fields, 'name');
      const description = optionalString(fields, 'description');
      if (description === undefined) throw invalidField("Field 'description' is required.");
      const index = indexField(fields);
      const { phase } = await boards.createPhase({
        project_id: call.project.projectId,
        name,
        description,
        has_index: index !== undefined,
        index: index ?? 0,
        limit: limitField(fields) ?? 0,
      });
      return phaseReply(call, phase, enrich);
    },

    /** `PUT P/phases/{id}`: any subset of `name`, `description`, `index`, `limit` (null removes it). */
    async update(call: Call): Promise<Reply> {
      const projectId = call.project.projectId;
      const phaseId = call.id('phaseId');
      const enrich = call.enrichments(PHASE_ENRICHMENTS);
      const fields = (await call.body()).object();
      const request: boards.UpdatePhaseRequest = {
        project_id: projectId,
        phase_id: phaseId,
        update_mask: [],
        expected_version: call.expectedVersion(),
      };
      const mask = request.update_mask as string[];
      // null is "unset" as for every optional field (docs/compat.md §1.4): the name stays.
      if (fields.name !== undefined && fields.name !== null) {
        request.name = requiredString(fields, 'name');
        mask.push('name');
      }
      if (fields.description !== undefined) {
        request.description = optionalString(fields, 'description') ?? '';
        mask.push('description');
      }
      const index = indexField(fields);
      if (index !== undefined) {
        request.index = index;
        mask.push('index');
      }
      const limit = limitField(fields);
      if (limit !== undefined) {
        request.limit = limit;
        mask.push('limit');
      }
      const { phase } = await boards.updatePhase(request);
      return phaseReply(call, phase, enrich);
    },

    async remove(call: Call): Promise<Reply> {
      await boards.deletePhase({
        project_id: call.project.projectId,
        phase_id: call.id('phaseId'),
        expected_version: call.expectedVersion(),
      });
      return empty();
    },

    /** `PUT P/phases`: every phase, in the new order (Backlog first, Archive last); answers the page of phases. */
    async reorder(call: Call): Promise<Reply> {
      const enrich = call.enrichments(PHASE_ENRICHMENTS);
      pageOnly(call.paging(), 'A reorder answers a page of the phases by number'); // before writing
      const ids = (await call.body()).array().map((item) => idOf(item, 'phase'));
      const { phases } = await boards.reorderPhases({ project_id: call.project.projectId, phase_ids: ids });
      return phasesPage(call, phases, enrich);
    },

    /**
     * `GET P/phases/{id}/stories` (E, F, Pg): the phase with a `stories` slice (no totals,
     * docs/compat.md §5.4). By cursor (README "Sync: cursors and updatedSince"): the slice in id order after the
     * cursor, then `totalItems` (the phase's stories matching `where`) and `nextCursor` (absent on the last page).
     */
    async listStories(call: Call): Promise<Reply> {
      const projectId = call.project.projectId;
      const phaseId = call.id('phaseId');
      const enrich = call.enrichments(STORY_ENRICHMENTS);
      const paging = call.paging();
      const where = call.query.get('where') ?? '';
      const listed = await boards.listPhaseStories({
        project_id: projectId,
        phase_id: phaseId,
        where,
        page: paging.page,
        page_size: paging.pageSize,
        users: await filterUsers(membership, projectId, where),
        ...keysetOf(paging),
      });
      if (!paging.cursor) return phaseWithStories(call, listed.phase, listed.stories, enrich);
      if (!listed.phase) throw new DomainError('Internal', 'boards returned no phase');
      const walked = keysetPageDto(
        await storyDtosFor(deps, call, listed.stories, enrich),
        paging,
        listed.total_items,
        listed.keyset,
        'boards',
      );
      return resource('phase', {
        ...phaseDto(listed.phase),
        stories: walked.items,
        totalItems: walked.totalItems,
        ...(walked.nextCursor === undefined ? {} : { nextCursor: walked.nextCursor }),
      });
    },

    /** `PUT P/phases/{id}/stories`: exactly the phase's stories (ids or `{id}`), in the new order. */
    async reorderStories(call: Call): Promise<Reply> {
      const projectId = call.project.projectId;
      const phaseId = call.id('phaseId');
      const ids = (await call.body()).array().map((item) => idOf(item, 'story'));
      const { phase, stories } = await boards.reorderPhaseStories({
        project_id: projectId,
        phase_id: phaseId,
        story_ids: ids,
      });
      return phaseWithStories(call, phase, stories, new Set());
    },
  };
}

/** This resource's operations, each declared once: the router and the OpenAPI document are built from them. */
export const phaseOperations = resourceOperations('Phases', 'stories', phaseHandlers, [
  get(`${P}/phases`, 'listPhases', 'List phases', {
    cursor: true,
    access: 'Read',
    cached: servableFromCache,
    with: 'phase',
    where: 'phase',
    ok: { page: 'Phase' },
    handler: 'list',
  }),
  post(`${P}/phases`, 'createPhase', 'Create a phase', {
    access: 'Admin',
    with: 'phase',
    body: 'PhaseCreate',
    ok: { one: 'Phase' },
    handler: 'create',
  }),
  put(`${P}/phases`, 'reorderPhases', 'Reorder phases', {
    access: 'Admin',
    with: 'phase',
    body: 'PhaseOrder',
    ok: { page: 'Phase' },
    handler: 'reorder',
  }),
  get(`${P}/phases/:phaseId`, 'getPhase', 'Get a phase', {
    access: 'Read',
    conditional: true,
    cached: servableFromCache,
    with: 'phase',
    ok: { one: 'Phase' },
    handler: 'get',
  }),
  put(`${P}/phases/:phaseId`, 'updatePhase', 'Update a phase', {
    access: 'Admin',
    conditional: true,
    with: 'phase',
    body: 'PhaseUpdate',
    ok: { one: 'Phase' },
    handler: 'update',
  }),
  del(`${P}/phases/:phaseId`, 'deletePhase', 'Delete a phase', {
    access: 'Admin',
    conditional: true,
    ok: 'empty',
    errors: [409],
    description: 'Backlog and Archive cannot be deleted (400); a phase holding stories \u2192 409.',
    handler: 'remove',
  }),
  get(`${P}/phases/:phaseId/stories`, 'listPhaseStories', 'List the stories of a phase', {
    cursor: true,
    access: 'Read',
    cached: servableFromCache,
    with: 'story',
    where: 'story',
    paged: true,
    ok: { one: 'Phase' },
    description:
      'The phase object with a `stories` array in board order (not a page; no totals). By cursor (`cursor=`): ' +
      'the `stories` in id (creation) order after the cursor, with `totalItems` (the stories of the phase ' +
      'matching `where`) and `nextCursor` (absent on the last page) beside them.',
    handler: 'listStories',
  }),
  put(`${P}/phases/:phaseId/stories`, 'reorderPhaseStories', 'Reorder the stories of a phase', {
    access: 'ReadWrite',
    body: 'StoryOrder',
    ok: { one: 'Phase' },
    handler: 'reorderStories',
  }),
]);
