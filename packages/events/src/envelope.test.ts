import { InvalidEventError, makeEvent, parseEvent } from './envelope';
import { inviteCreatedV1 } from './membership';

const data = {
  inviteId: 7,
  projectId: 1,
  projectName: 'Sudden Valley',
  roleName: 'Members',
  email: 'maeby@funke.com',
  token: 'a'.repeat(32),
  senderName: 'Gob Bluth',
  expiresAt: '2026-12-06T10:00:00.000Z',
};

describe('event envelope', () => {
  it('round-trips an event through bytes', () => {
    const event = makeEvent(inviteCreatedV1, 'membership', data);
    expect(inviteCreatedV1.topic).toBe('membership.invite-created.v1');
    const parsed = parseEvent(inviteCreatedV1, Buffer.from(JSON.stringify(event)));
    expect(parsed).toEqual(event);
  });

  it.each([
    ['not JSON', 'hello'],
    ['no envelope', JSON.stringify(data)],
    ['wrong version', JSON.stringify({ ...makeEvent(inviteCreatedV1, 'm', data), version: 2 })],
    [
      'bad data',
      JSON.stringify({ ...makeEvent(inviteCreatedV1, 'm', data), data: { ...data, email: 'nope' } }),
    ],
  ])('rejects %s', (_name, raw) => {
    expect(() => parseEvent(inviteCreatedV1, raw)).toThrow(InvalidEventError);
  });
});
