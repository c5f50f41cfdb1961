import { payloadBody } from './payload';

describe('payloadBody', () => {
  it('is the event’s id, type and time, the project and actor, and the rendered data, in that order', () => {
    const body = payloadBody({
      id: '0b7e6c1e-2f6a-4d3b-9a51-6f1c2d3e4f50',
      type: 'story.moved',
      occurredAt: '2026-01-02T03:04:05.678Z',
      projectId: 7,
      actorId: 42,
      data: { id: 3, phase: { id: 2, name: 'Working' } },
    });
    expect(body).toBe(
      '{"id":"0b7e6c1e-2f6a-4d3b-9a51-6f1c2d3e4f50","type":"story.moved","timestamp":"2026-01-02T03:04:05.678Z",' +
        '"project":{"id":7},"actor":{"id":42},"data":{"id":3,"phase":{"id":2,"name":"Working"}}}',
    );
  });
});
