import nodemailer from 'nodemailer';
import { createMailSender, smtpOptionsFromUrl } from './transport';

describe('SMTP_URL', () => {
  it('gives host and port', () => {
    expect(smtpOptionsFromUrl('smtp://127.0.0.1:1025')).toEqual({ host: '127.0.0.1', port: 1025 });
    expect(smtpOptionsFromUrl('smtp://mail.internal')).toEqual({ host: 'mail.internal', port: 25 });
  });

  it('gives percent-decoded credentials when present', () => {
    expect(smtpOptionsFromUrl('smtp://no%40reply:p%3Ass@mail.internal:587')).toEqual({
      host: 'mail.internal',
      port: 587,
      auth: { user: 'no@reply', pass: 'p:ss' },
    });
  });

  it('refuses other schemes', () => {
    expect(() => smtpOptionsFromUrl('http://mail.internal')).toThrow(/smtp:\/\//);
  });
});

describe('mail sender', () => {
  it('sends text and HTML from the configured sender', async () => {
    const transport = nodemailer.createTransport({ jsonTransport: true });
    const sendMail = jest.spyOn(transport, 'sendMail');
    await createMailSender(transport, 'Flowboard <no-reply@flowboard.local>').send({
      to: 'maeby@funke.com',
      subject: 'Hi',
      text: 'plain',
      html: '<p>html</p>',
      idempotencyKey: 'invite.0f3c9a7e',
    });
    const sent = JSON.parse(((await sendMail.mock.results[0]!.value) as { message: string }).message);
    expect(sent).toMatchObject({
      from: { address: 'no-reply@flowboard.local', name: 'Flowboard' },
      to: [{ address: 'maeby@funke.com' }],
      subject: 'Hi',
      text: 'plain',
      html: '<p>html</p>',
      messageId: '<invite.0f3c9a7e@flowboard.local>',
    });
  });
});
