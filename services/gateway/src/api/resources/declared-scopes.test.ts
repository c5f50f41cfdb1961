import { permits, scopeName, type KeyScope } from '../../authz/scopes';
import { OPERATIONS } from '.';

// The scope each operation declares (README "Scoped API keys"): the router, the OpenAPI document, the MCP tools and
// the check all read it from the declarations, so it is pinned here once.
const FULL: KeyScope = { write: true };
const READ_ONLY: KeyScope = { write: false };

describe('what the declared scopes let a key do', () => {
  it('a key without limits may do anything its user may', () => {
    for (const op of OPERATIONS) if (op.scope) expect(permits(FULL, op.scope)).toBe(true);
  });

  it('a read-only key may run every GET and nothing else', () => {
    for (const op of OPERATIONS) {
      if (op.scope)
        expect([op.operationId, permits(READ_ONLY, op.scope)]).toEqual([op.operationId, op.method === 'GET']);
    }
  });
});

describe('the scope every operation declares', () => {
  it('every operation taken with a key has one; sign-up and the operator routes have none', () => {
    for (const op of OPERATIONS) {
      const keyless = op.access === 'public' || op.access === 'operator';
      expect([op.operationId, op.scope === undefined]).toEqual([op.operationId, keyless]);
    }
  });

  it('names each as group:read or group:write, a write being anything but a GET', () => {
    const named = Object.fromEntries(
      OPERATIONS.filter((op) => op.scope).map((op) => [op.operationId, scopeName(op.scope!)]),
    );
    expect(named).toMatchObject({
      getProject: 'any:read',
      listProjects: 'any:read',
      listMembers: 'any:read',
      createProject: 'administration:write',
      updateStory: 'stories:write',
      listStories: 'stories:read',
      streamProjectEvents: 'stories:read',
      createComment: 'comments:write',
      uploadAttachments: 'attachments:write',
      createWebhook: 'administration:write',
      acceptInvite: 'account:write',
      createApiKey: 'account:write',
      getCurrentApiKey: 'any:read',
    });
  });
});
