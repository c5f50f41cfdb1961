import { SCOPE_GROUPS, SCOPE_GROUP_DESCRIPTIONS } from '../../authz/scopes';
import {
  body,
  int,
  pageSchema,
  resource,
  str,
  text,
  timestamp,
  xmlArray,
  type ResourceSchemas,
} from '../schema';

/** API keys (api-keys.routes.ts): a key as listed, and what a new one may do. */

const GROUPS_TEXT = SCOPE_GROUPS.map((g) => `\`${g}\` (${SCOPE_GROUP_DESCRIPTIONS[g]})`).join('; ');
const group = { type: 'string', enum: [...SCOPE_GROUPS] };
const projectId = { type: 'integer', minimum: 1 };

export const apiKeySchemas: ResourceSchemas = {
  responses: {
    ApiKey: resource(
      'apiKey',
      ['id', 'name', 'createTime', 'enabled', 'hint', 'access'],
      {
        id: int(),
        name: str('`""` for a key made without one.'),
        createTime: timestamp,
        enabled: { type: 'boolean' },
        hint: str('The last 4 characters of the key.'),
        expiresAt: { ...timestamp, description: 'Refused (401) from this time on. Left out: never expires.' },
        lastUsedTime: {
          ...timestamp,
          description: 'When the key was last used, at most a minute late. Left out: never used.',
        },
        access: {
          type: 'string',
          enum: ['read', 'readwrite'],
          description: '`read`: no writes, whatever its user may do.',
        },
        projects: xmlArray(projectId, 'projects', 'project', 'Only these projects. Left out: every project.'),
        groups: xmlArray(
          group,
          'groups',
          'group',
          `Only these groups of operations. Left out: all. ${GROUPS_TEXT}.`,
        ),
        key: {
          type: 'string',
          pattern: '^[0-9a-f]{32}$',
          description: 'The full key: only in the create response.',
        },
      },
      { description: 'Flowboard addition: an API key, what it may do, and when it was last used.' },
    ),
  },
  pages: { ApiKeyPage: pageSchema('ApiKey', 'apiKeys') },
  requests: {
    ApiKeyCreate: body('apiKey', {
      name: {
        ...text(100),
        description: 'What the key is for ("triage bot"): shown with every change it makes.',
      },
      expiresAt: {
        type: 'string',
        pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}',
        description: 'A date and time in the future (UTC unless it names a zone). Left out: never expires.',
      },
      access: { type: 'string', enum: ['read', 'readwrite'], description: 'Default `readwrite`.' },
      projects: {
        ...xmlArray(
          {
            description: 'A project id, or `{id}`.',
            anyOf: [projectId, { type: 'string' }, { type: 'object' }],
          },
          'projects',
          'project',
          'Limits the key to these projects (of which the caller is a member). Left out: every project.',
        ),
        minItems: 1,
      },
      groups: {
        ...xmlArray(
          group,
          'groups',
          'group',
          `Limits the key to these groups of operations. ${GROUPS_TEXT}.`,
        ),
        minItems: 1,
      },
    }),
  },
};
