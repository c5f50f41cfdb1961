import { makeEvent, parseEvent } from './envelope';
import { projectDeletedV1 } from './index';

describe('membership.project-deleted.v1', () => {
  const data = {
    projectId: 3,
    projectName: 'Sudden Valley',
    ownerId: 1,
    deletedBy: 1,
    deletedAt: '2026-12-06T10:00:00.000Z',
  };

  it('has its topic and round-trips', () => {
    expect(projectDeletedV1.topic).toBe('membership.project-deleted.v1');
    const event = makeEvent(projectDeletedV1, 'membership', data);
    expect(parseEvent(projectDeletedV1, JSON.stringify(event))).toEqual(event);
  });

  it('refuses a missing project id', () => {
    expect(() => makeEvent(projectDeletedV1, 'membership', { ...data, projectId: 0 })).toThrow();
  });
});
