import {
  arrayOf,
  body,
  email,
  int,
  nonBlank,
  pageSchema,
  ref,
  resource,
  str,
  text,
  timestamp,
  userRefProperties,
  type ResourceSchemas,
  type Schema,
} from '../schema';

/**
 * Users, their API keys and accounts: the full user record in its forms (`/me` and member pages, sign-up, the
 * operator's view with `enabled`), as users.routes.ts, members.routes.ts and admin.routes.ts answer them.
 */

const userName: Schema = { type: 'string', pattern: '^[A-Za-z0-9._-]{1,200}$' };

export const userSchemas: ResourceSchemas = {
  responses: {
    User: resource(
      'user',
      ['id', 'name', 'userName', 'email', 'bio', 'createTime'],
      {
        ...userRefProperties,
        bio: str('`""` when empty.'),
        createTime: timestamp,
        stories: arrayOf(
          ref('StorySummary'),
          'With `with=stories` (`/me` only): the stories the caller owns.',
        ),
      },
      { description: 'A full user record (`/me`, sign-up, member pages).' },
    ),
    SignedUpUser: resource(
      'user',
      ['id', 'name', 'userName', 'email', 'bio', 'createTime', 'apiKey'],
      {
        ...userRefProperties,
        bio: str(),
        createTime: timestamp,
        apiKey: {
          type: 'string',
          pattern: '^[0-9a-f]{32}$',
          description: 'A first API key; shown only here.',
        },
      },
      { description: 'Flowboard addition: the full user record plus a first API key.' },
    ),
    UserStatus: resource(
      'user',
      ['id', 'name', 'userName', 'email', 'bio', 'createTime', 'enabled'],
      {
        ...userRefProperties,
        bio: str(),
        createTime: timestamp,
        enabled: { type: 'boolean', description: 'false: every API key of the user is refused.' },
      },
      { description: 'Flowboard addition (operator): the full user record plus `enabled`.' },
    ),
    Account: resource(
      'account',
      ['id', 'collaboratorsUsed', 'storageLimitBytes', 'storageUsedBytes'],
      {
        id: int("The owner's user id."),
        collaboratorLimit: int('Omitted in JSON (`<collaboratorLimit />` in XML) when there is no limit.'),
        collaboratorsUsed: int('Non-owner members of its projects plus pending invited addresses.'),
        storageLimitBytes: int(),
        storageUsedBytes: int('Stored attachments plus uploads in flight.'),
      },
      {
        description:
          'Flowboard addition: an account (one per user, holding the projects the user owns), its effective ' +
          'limits and what is in use.',
      },
    ),
  },
  pages: { UserPage: pageSchema('User', 'users') },
  requests: {
    SignUpRequest: body(
      'user',
      {
        userName,
        email,
        name: { ...text(200), description: 'Defaults to userName.' },
      },
      ['userName', 'email'],
    ),
    MeUpdate: body('user', {
      name: nonBlank(200),
      username: { ...userName, description: 'Also accepted as `userName`.' },
      email,
      bio: text(100_000),
    }),
  },
};
