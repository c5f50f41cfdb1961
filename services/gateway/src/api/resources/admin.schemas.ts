import { body, nullable, type ResourceSchemas, type Schema } from '../schema';

/** The operator's requests (admin.routes.ts); it answers users', keys' and accounts' shapes (users.schemas.ts). */

/** The operator's switches: `{enabled}` under the resource's XML root. */
const enabledBody = (xmlName: string): Schema =>
  body(xmlName, { enabled: { type: 'boolean', description: 'In XML: `true` or `false`.' } }, ['enabled']);
/** An account limit: exact as a JSON number and as an int64. */
const LIMIT: Schema = { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER };

export const adminSchemas: ResourceSchemas = {
  requests: {
    UserEnabled: enabledBody('user'),
    ApiKeyEnabled: enabledBody('apiKey'),
    AccountLimits: {
      ...body('account', {
        collaboratorLimit: nullable({ ...LIMIT, description: 'null: back to the default.' }),
        storageLimitBytes: nullable({ ...LIMIT, description: 'null: back to the default.' }),
      }),
      minProperties: 1,
      description: 'At least one of the two.',
    },
  },
};
