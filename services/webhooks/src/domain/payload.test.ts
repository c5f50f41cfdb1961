import { payloadBody } from './payload';

describe('payloadBody', () => {
  const event = {
    id: '0b7e6c1e-2f6a-4d3b-9a51-6f1c2d3e4f50',
    type: 'task.updated',
    occurredAt: '2026-01-02T03:04:05.678Z',
    project: { id: 7, name: 'Sudden Valley' },
    actor: { id: 42, name: 'Gob', userName: 'gob', email: 'gob@example.test' },
  };

  it('is the event’s id, type and time, the project, actor and story, and the rendered data, in that order', () => {
    const body = payloadBody({ ...event, story: { id: 3 }, data: { id: 9, text: 'Fix the stair car' } });
    expect(body).toBe(
      '{"id":"0b7e6c1e-2f6a-4d3b-9a51-6f1c2d3e4f50","type":"task.updated","timestamp":"2026-01-02T03:04:05.678Z",' +
        '"project":{"id":7,"name":"Sudden Valley"},' +
        '"actor":{"id":42,"name":"Gob","userName":"gob","email":"gob@example.test"},' +
        '"story":{"id":3},"data":{"id":9,"text":"Fix the stair car"}}',
    );
  });

  it('leaves `story` out when the change is not to a story’s child', () => {
    expect(JSON.parse(payloadBody({ ...event, type: 'role.created', data: { id: 1 } }))).not.toHaveProperty(
      'story',
    );
  });
});
