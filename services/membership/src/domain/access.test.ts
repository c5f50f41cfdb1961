import { effectiveAccess, hasAccess, highestAccess, isAccessLevel } from './access';

describe('highestAccess', () => {
  it('is none without roles', () => {
    expect(highestAccess([])).toBe('none');
  });

  it.each([
    [['read', 'admin', 'none'], 'admin'],
    [['readwrite', 'read'], 'readwrite'],
    [['none', 'read'], 'read'],
    [['none'], 'none'],
  ] as const)('%j → %s', (levels, expected) => {
    expect(highestAccess(levels)).toBe(expected);
  });
});

describe('effectiveAccess', () => {
  it('gives the owner admin whatever the roles say', () => {
    expect(effectiveAccess({ isOwner: true, isProjectMember: false, roleAccess: ['read'] })).toBe('admin');
  });

  it('gives other members the highest access among their roles', () => {
    expect(
      effectiveAccess({ isOwner: false, isProjectMember: true, roleAccess: ['read', 'readwrite'] }),
    ).toBe('readwrite');
  });

  it('makes a role member a member even without a project_members row', () => {
    expect(effectiveAccess({ isOwner: false, isProjectMember: false, roleAccess: ['read'] })).toBe('read');
  });

  it('gives a member without a role none', () => {
    expect(effectiveAccess({ isOwner: false, isProjectMember: true, roleAccess: [] })).toBe('none');
  });

  it('knows no access at all for a non-member', () => {
    expect(effectiveAccess({ isOwner: false, isProjectMember: false, roleAccess: [] })).toBeUndefined();
  });
});

describe('hasAccess', () => {
  it('orders none < read < readwrite < admin', () => {
    expect(hasAccess('admin', 'readwrite')).toBe(true);
    expect(hasAccess('readwrite', 'readwrite')).toBe(true);
    expect(hasAccess('read', 'readwrite')).toBe(false);
    expect(hasAccess('none', 'read')).toBe(false);
  });

  it('recognises only the four levels', () => {
    expect(isAccessLevel('readwrite')).toBe(true);
    expect(isAccessLevel('write')).toBe(false);
    expect(isAccessLevel(undefined)).toBe(false);
  });
});
