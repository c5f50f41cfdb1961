import { missingScope, permits, reachesProject, withinScope, type KeyScope } from './scopes';

const FULL: KeyScope = { write: true };
const READ_ONLY: KeyScope = { write: false };
const COMMENTS: KeyScope = { write: true, groups: ['comments'] };
const ONE_PROJECT: KeyScope = { write: true, projects: [3] };

describe('what a key may do', () => {
  it("a key limited to groups may run their operations and those of every key ('any')", () => {
    expect(permits(COMMENTS, { group: 'comments', write: true })).toBe(true);
    expect(permits(COMMENTS, { group: 'any', write: false })).toBe(true);
    expect(missingScope(COMMENTS, { group: 'stories', write: false })).toBe('stories:read');
    expect(missingScope({ ...COMMENTS, write: false }, { group: 'comments', write: true })).toBe(
      'comments:write',
    );
  });

  it('a key limited to projects reaches those only', () => {
    expect(reachesProject(ONE_PROJECT, 3)).toBe(true);
    expect(reachesProject(ONE_PROJECT, 4)).toBe(false);
    expect(reachesProject(FULL, 4)).toBe(true);
  });

  it('a key can make keys that do no more than it does', () => {
    expect(withinScope(COMMENTS, FULL)).toBe(true);
    expect(withinScope(FULL, COMMENTS)).toBe(false);
    expect(withinScope({ write: false, groups: ['comments'] }, COMMENTS)).toBe(true);
    expect(withinScope({ write: true, groups: ['comments', 'stories'] }, COMMENTS)).toBe(false);
    expect(withinScope({ write: true }, READ_ONLY)).toBe(false);
    expect(withinScope({ write: true, projects: [3] }, ONE_PROJECT)).toBe(true);
    expect(withinScope({ write: true, projects: [3, 4] }, ONE_PROJECT)).toBe(false);
    expect(withinScope({ write: true }, ONE_PROJECT)).toBe(false);
  });
});
