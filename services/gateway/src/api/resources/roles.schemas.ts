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

/** A project's roles and their members (roles.routes.ts). */
export const roleSchemas: ResourceSchemas = {
  responses: {
    Role: resource('role', ['id', 'name', 'access', 'members'], {
      id: int(),
      name: str(),
      access: ref('AccessLevel'),
      members: arrayOf(ref('UserRef')),
    }),
  },
  pages: { RolePage: pageSchema('Role', 'roles') },
  requests: {
    RoleCreate: body(
      'role',
      { name: nonBlank(200), access: { ...ref('AccessLevel'), description: 'Default `none`.' } },
      ['name'],
    ),
    RoleUpdate: body('role', { name: nonBlank(200), access: ref('AccessLevel') }),
    UserReferences: xmlArray(ref('UserReference'), 'members', 'user'),
  },
};
