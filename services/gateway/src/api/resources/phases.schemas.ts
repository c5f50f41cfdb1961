import {
  arrayOf,
  body,
  int,
  nonBlank,
  pageSchema,
  ref,
  resource,
  str,
  xmlArray,
  type ResourceSchemas,
} from '../schema';

/** Phases (phases.routes.ts): a project's board columns, their order and the order of their stories. */

/** A phase's WIP limit is an int32 in boards. */
const WIP_LIMIT_MAX = 2_147_483_647;

export const phaseSchemas: ResourceSchemas = {
  responses: {
    Phase: resource('phase', ['id', 'name', 'description', 'index'], {
      id: int(),
      name: str(),
      description: str(),
      index: int('Zero-based position: Backlog is 0, Archive last.'),
      limit: {
        type: 'integer',
        minimum: 1,
        description: 'Work-in-progress limit (advisory). Unset: omitted in JSON, `<limit />` in XML.',
      },
      stories: arrayOf(ref('Story'), 'With `with=stories`, and always on `P/phases/{phaseId}/stories`.'),
      totalItems: int(
        '`P/phases/{phaseId}/stories` by cursor only: the stories of the phase matching `where`. Flowboard addition.',
      ),
      nextCursor: str(
        '`P/phases/{phaseId}/stories` by cursor only: the cursor of the next slice of `stories`; absent on the ' +
          'last. Flowboard addition.',
      ),
    }),
  },
  pages: { PhasePage: pageSchema('Phase', 'phases') },
  requests: {
    PhaseCreate: body(
      'phase',
      {
        name: nonBlank(200),
        description: str(),
        index: {
          type: 'integer',
          minimum: 1,
          description: "1 … Archive's index; default: just before Archive.",
        },
        limit: { type: 'integer', minimum: 1, maximum: WIP_LIMIT_MAX },
      },
      ['name', 'description'],
    ),
    PhaseUpdate: body('phase', {
      name: nonBlank(200),
      description: str(),
      index: { type: 'integer', minimum: 1, description: "1 … Archive's index, for a middle phase." },
      limit: {
        anyOf: [{ type: 'integer', minimum: 1, maximum: WIP_LIMIT_MAX }, { type: 'null' }, { const: '' }],
        description: 'null removes.',
      },
    }),
    PhaseOrder: xmlArray(
      ref('PhaseReference'),
      'phases',
      'phase',
      'Every phase once, Backlog first, Archive last.',
    ),
    StoryOrder: xmlArray(ref('StoryReference'), 'stories', 'story', "Exactly the phase's stories."),
  },
};
