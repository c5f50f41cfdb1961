import { FULL_SCOPE } from '../authz/scopes';
import { toolsFor } from './catalog';

const names = (scope: Parameters<typeof toolsFor>[0]) => toolsFor(scope).map((tool) => tool.name);

describe('the tools a key is shown', () => {
  it('are all of them for a full key', () => {
    expect(names(FULL_SCOPE)).toEqual(
      expect.arrayContaining(['createStory', 'updateStory', 'deleteProject']),
    );
  });

  it('are the reads alone for a read-only key', () => {
    const read = toolsFor({ write: false });
    expect(read.map((t) => t.name)).toEqual(
      expect.arrayContaining(['getStory', 'listStories', 'streamProjectEvents']),
    );
    expect(read.every((t) => t.operation.method === 'GET')).toBe(true);
  });

  it('are those of its groups, and those every key may (projects, members), for a key limited to some', () => {
    const comments = names({ write: true, groups: ['comments'] });
    expect(comments).toEqual(
      expect.arrayContaining(['createComment', 'listComments', 'listProjects', 'getProject']),
    );
    expect(comments).not.toContain('createStory');
    expect(comments).not.toContain('getStory');
  });
});
