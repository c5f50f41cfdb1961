import { DomainError } from '@flowboard/service-kit';
import type { boards } from '@flowboard/proto';
import { resolveUsers } from '../../clients/user-resolver';
import { storyDto, storyUserIds } from '../../representation/story.dto';
import type { Call } from '../call';
import type { EnrichmentVocabulary } from '../enrichments';
import { optionalReference, optionalString, requiredString, type Reference } from '../fields';
import { resource, type Reply } from '../respond';
import type { RouteDeps } from './deps';

// TODO(story-enrichments): tags, tasks, comments, milestones, steps, metrics arrive with their RPCs.
export const STORY_ENRICHMENTS: EnrichmentVocabulary = { names: ['details'] };

export function storyHandlers(deps: RouteDeps) {
  const { membership, boards } = deps;

  /** Stories as API resources: creator and owner resolved in one batch, the project name from the access check. */
  async function storyReply(call: Call, story: boards.Story__Output | null, enrich: ReadonlySet<string>) {
    if (!story) throw new DomainError('Internal', 'boards returned no story');
    const users = await resolveUsers(membership, storyUserIds([story]));
    const { projectId, projectName } = call.project;
    return resource(
      'story',
      storyDto(story, {
        project: { id: projectId, name: projectName },
        users,
        details: enrich.has('details'),
      }),
    );
  }

  /** A phase by name: the first match by index, ignoring case (api-compat §5.3). */
  async function phaseIdFor(projectId: number, ref: Reference | null | undefined): Promise<number> {
    if (!ref) return 0; // Backlog
    if ('id' in ref) return ref.id;
    const { phases } = await boards.listPhases(projectId);
    const wanted = ref.name.toLowerCase();
    const phase = phases.find((p) => p.name.toLowerCase() === wanted);
    if (!phase) {
      throw new DomainError('InvalidArgument', `Unknown phase '${ref.name}'.`, {
        problem: 'invalid-reference',
      });
    }
    return phase.id;
  }

  return {
    // TODO(story-owner): `owner` (id or username, must be a member) is ignored until user references resolve.
    // TODO(story-tags-tasks): `tags` and `tasks` on create arrive with their RPCs.
    async create(call: Call): Promise<Reply> {
      const { projectId } = call.project;
      const fields = (await call.body()).object();
      const text = requiredString(fields, 'text');
      const enrich = call.enrichments(STORY_ENRICHMENTS);
      const { story } = await boards.createStory({
        project_id: projectId,
        text,
        details: optionalString(fields, 'details') ?? '',
        size: optionalString(fields, 'size') ?? '',
        priority: optionalString(fields, 'priority') ?? '',
        color: optionalString(fields, 'color') ?? '',
        phase_id: await phaseIdFor(projectId, optionalReference(fields, 'phase', { byName: true })),
        owner_id: 0,
        deadline: optionalString(fields, 'deadline') ?? '',
      });
      return storyReply(call, story, enrich);
    },

    async get(call: Call): Promise<Reply> {
      const enrich = call.enrichments(STORY_ENRICHMENTS);
      const { story } = await boards.getStory(call.project.projectId, call.id('storyId'));
      return storyReply(call, story, enrich);
    },
  };
}
