import type { InviteCreatedV1 } from '@flowboard/events';
import { escapeHtml, renderInviteEmail } from './invite-email';

const invite: InviteCreatedV1 = {
  inviteId: 7,
  projectId: 1,
  projectName: 'Sudden <Valley> & "Sons"',
  roleName: "Members' <b>",
  email: 'maeby@funke.com',
  token: '0123456789abcdef0123456789abcdef',
  senderName: '<script>alert(1)</script>Gob',
  expiresAt: '2026-12-06T10:00:00.000Z',
};

describe('invite e-mail', () => {
  const mail = renderInviteEmail(invite, { publicBaseUrl: 'https://flowboard.example/' });
  const acceptUrl = 'https://flowboard.example/api/v1/invites/0123456789abcdef0123456789abcdef/accept';

  it('names the project in the subject, on one line', () => {
    expect(mail.subject).toBe(`You're invited to Sudden <Valley> & "Sons" on Flowboard`);
    const multiline = renderInviteEmail(
      { ...invite, projectName: 'a\r\nBcc: evil@example.com' },
      { publicBaseUrl: 'http://x' },
    );
    expect(multiline.subject).not.toMatch(/[\r\n]/);
  });

  it('carries the token and the accept call in both bodies', () => {
    for (const body of [mail.text, mail.html]) {
      expect(body).toContain(invite.token);
      expect(body).toContain(`POST ${acceptUrl}`);
      expect(body).toContain('2026-12-06 10:00 UTC');
    }
  });

  it('escapes everything user-supplied in the HTML body', () => {
    expect(mail.html).not.toContain('<script>');
    expect(mail.html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;Gob');
    expect(mail.html).toContain('Sudden &lt;Valley&gt; &amp; &quot;Sons&quot;');
    expect(mail.html).toContain('Members&#39; &lt;b&gt;');
    expect(mail.text).toContain('Sudden <Valley> & "Sons"');
  });

  it("does not repeat the invitee's address in the bodies", () => {
    expect(mail.text).not.toContain(invite.email);
    expect(mail.html).not.toContain(invite.email);
  });

  it('escapes the five HTML specials', () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
  });
});
