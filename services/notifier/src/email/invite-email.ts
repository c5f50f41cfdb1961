import type { InviteCreatedV1 } from '@flowboard/events';

export interface RenderedEmail {
  subject: string;
  text: string;
  html: string;
}

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};
export const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c] as string);

/** Header values must stay on one line whatever a project is called. */
const oneLine = (s: string): string => s.replace(/[\r\n\t]+/g, ' ').trim();

/** `2025-01-16T03:04:05.000Z` → `2025-01-16 03:04 UTC`. */
const formatExpiry = (iso: string): string => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;

/**
 * The invite e-mail, in text and HTML. It carries what the invitee needs to accept (project, role, who
 * invited them, the token and the accept call) and nothing else: not their address, not the sender's.
 */
export function renderInviteEmail(
  invite: InviteCreatedV1,
  options: { publicBaseUrl: string },
): RenderedEmail {
  const base = options.publicBaseUrl.replace(/\/+$/, '');
  const acceptUrl = `${base}/api/v1/invites/${encodeURIComponent(invite.token)}/accept`;
  const signUpUrl = `${base}/api/v1/users`;
  const expires = formatExpiry(invite.expiresAt);
  const sender = oneLine(invite.senderName) || 'A Flowboard user';
  const project = oneLine(invite.projectName);
  const role = oneLine(invite.roleName);

  const subject = `You're invited to ${project} on Flowboard`;

  const text = [
    'Hello,',
    '',
    `${sender} invited you to the project "${project}" on Flowboard, in the role "${role}".`,
    '',
    'To accept, call the Flowboard API with your API key:',
    '',
    `  POST ${acceptUrl}`,
    '',
    'for example:',
    '',
    `  curl -X POST -H "X-Zen-ApiKey: <your API key>" ${acceptUrl}`,
    '',
    `No API key yet? Sign up first: POST ${signUpUrl}`,
    '',
    `Invite token: ${invite.token}`,
    `This invitation expires on ${expires}.`,
    '',
    'If you did not expect this invitation, you can ignore this e-mail.',
    '',
  ].join('\n');

  const e = escapeHtml;
  const html = `<!doctype html>
<html>
<body style="font-family: sans-serif; line-height: 1.5">
<p>Hello,</p>
<p>${e(sender)} invited you to the project <strong>${e(project)}</strong> on Flowboard, in the role <strong>${e(role)}</strong>.</p>
<p>To accept, call the Flowboard API with your API key:</p>
<pre><code>POST ${e(acceptUrl)}</code></pre>
<p>for example:</p>
<pre><code>curl -X POST -H "X-Zen-ApiKey: &lt;your API key&gt;" ${e(acceptUrl)}</code></pre>
<p>No API key yet? Sign up first: <code>POST ${e(signUpUrl)}</code></p>
<p>Invite token: <code>${e(invite.token)}</code><br>This invitation expires on ${e(expires)}.</p>
<p>If you did not expect this invitation, you can ignore this e-mail.</p>
</body>
</html>
`;
  return { subject, text, html };
}
