import { inviteCreatedV1, makeEvent } from '@flowboard/events';
import { PermanentMessageError, RetryLaterError, type IncomingMessage } from '@flowboard/messaging';
import { createLogger } from '@flowboard/service-kit';
import type { MailSender, OutgoingMail } from '../email/transport';
import type { ClaimResult, DedupeStore } from './dedupe';
import { createInviteCreatedHandler, SendInProgressError } from './invite-created.handler';

class FakeDedupe implements DedupeStore {
  readonly states = new Map<string, 'pending' | 'sent'>();
  async claim(id: string): Promise<ClaimResult> {
    const state = this.states.get(id);
    if (state === 'sent') return 'done';
    if (state === 'pending') return 'in-progress';
    this.states.set(id, 'pending');
    return 'claimed';
  }
  async complete(id: string) {
    this.states.set(id, 'sent');
  }
  async release(id: string) {
    this.states.delete(id);
  }
  async claimHeldForMs() {
    return 42_000;
  }
}

class FakeMailer implements MailSender {
  readonly sent: OutgoingMail[] = [];
  failWith: unknown;
  async send(mail: OutgoingMail) {
    if (this.failWith) throw this.failWith;
    this.sent.push(mail);
  }
  close() {}
}

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

const message = (value: unknown): IncomingMessage => ({
  topic: inviteCreatedV1.topic,
  partition: 0,
  offset: '0',
  key: '1',
  value: Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)),
  headers: {},
});

describe('invite-created handler', () => {
  const setup = () => {
    const dedupe = new FakeDedupe();
    const mailer = new FakeMailer();
    const handle = createInviteCreatedHandler({
      dedupe,
      mailer,
      render: (invite) => ({
        subject: `Invite to ${invite.projectName}`,
        text: invite.token,
        html: `<p>${invite.token}</p>`,
      }),
      logger: createLogger('test', 'silent'),
    });
    return { dedupe, mailer, handle };
  };

  it('sends one e-mail to the invitee and remembers the event', async () => {
    const { dedupe, mailer, handle } = setup();
    const event = makeEvent(inviteCreatedV1, 'membership', data);
    await handle(message(event));
    expect(mailer.sent).toEqual([
      {
        to: 'maeby@funke.com',
        subject: 'Invite to Sudden Valley',
        text: data.token,
        html: `<p>${data.token}</p>`,
        idempotencyKey: `invite.${event.id}`,
      },
    ]);
    expect(dedupe.states.get(event.id)).toBe('sent');
  });

  it('sends nothing for a duplicate of an event already handled', async () => {
    const { mailer, handle } = setup();
    const event = makeEvent(inviteCreatedV1, 'membership', data);
    await handle(message(event));
    await handle(message(event));
    expect(mailer.sent).toHaveLength(1);
  });

  it('waits, without sending, until the claim of another delivery mid-send expires', async () => {
    const { dedupe, mailer, handle } = setup();
    const event = makeEvent(inviteCreatedV1, 'membership', data);
    dedupe.states.set(event.id, 'pending');
    const wait = await handle(message(event)).catch((err: unknown) => err);
    expect(wait).toBeInstanceOf(SendInProgressError);
    expect(wait).toBeInstanceOf(RetryLaterError); // a wait, not a failure: the notifier stays Ready
    expect((wait as RetryLaterError).afterMs).toBe(42_200);
    expect(mailer.sent).toHaveLength(0);
  });

  it.each([
    ['not JSON', 'hello'],
    ['no envelope', data],
    ['an invalid address', { ...makeEvent(inviteCreatedV1, 'm', data), data: { ...data, email: 'nope' } }],
    ['another event type', { ...makeEvent(inviteCreatedV1, 'm', data), type: 'membership.other' }],
  ])('dead-letters %s without claiming or sending', async (_name, value) => {
    const { dedupe, mailer, handle } = setup();
    await expect(handle(message(value))).rejects.toBeInstanceOf(PermanentMessageError);
    expect(dedupe.states.size).toBe(0);
    expect(mailer.sent).toHaveLength(0);
  });

  it('dead-letters an empty message', async () => {
    const { handle } = setup();
    await expect(handle({ ...message(''), value: null })).rejects.toBeInstanceOf(PermanentMessageError);
  });

  it('releases the claim and rethrows when the mail server is down, so the retry sends', async () => {
    const { dedupe, mailer, handle } = setup();
    const event = makeEvent(inviteCreatedV1, 'membership', data);
    mailer.failWith = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1025'), { code: 'ESOCKET' });
    const error = await handle(message(event)).catch((e: Error) => e);
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(PermanentMessageError);
    expect(dedupe.states.has(event.id)).toBe(false);

    mailer.failWith = undefined;
    await handle(message(event));
    expect(mailer.sent).toHaveLength(1);
  });

  it('dead-letters a recipient the server refuses for good, and keeps the address out of the error', async () => {
    const { dedupe, mailer, handle } = setup();
    const event = makeEvent(inviteCreatedV1, 'membership', data);
    mailer.failWith = Object.assign(
      new Error("Can't send mail - all recipients were rejected: 550 <maeby@funke.com>"),
      {
        code: 'EENVELOPE',
        responseCode: 550,
        command: 'RCPT TO',
      },
    );
    const error = (await handle(message(event)).catch((e: Error) => e)) as Error;
    expect(error).toBeInstanceOf(PermanentMessageError);
    expect(error.message).not.toContain('maeby');
    expect(error.message).toContain('550');
    expect(dedupe.states.has(event.id)).toBe(false);
  });

  it('does not fail (and so does not resend) when only remembering the sent e-mail fails', async () => {
    const { dedupe, mailer, handle } = setup();
    jest.spyOn(dedupe, 'complete').mockRejectedValue(new Error('redis down'));
    await handle(message(makeEvent(inviteCreatedV1, 'membership', data)));
    expect(mailer.sent).toHaveLength(1);
  });
});
