// Mailpit-compatible mail catcher: accepts any mail over plain SMTP and serves it over Mailpit's REST API,
// so tests and `npm start` work where Mailpit itself cannot be built.
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { simpleParser, type AddressObject } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { createHttpServer } from './http';
import type { Address, Message } from './message';
import { MessageStore } from './store';

const host = process.env.MAILSINK_HOST ?? '127.0.0.1';
const smtpPort = Number(process.env.MAILSINK_SMTP_PORT ?? 1025);
const httpPort = Number(process.env.MAILSINK_HTTP_PORT ?? 8025);
const store = new MessageStore(process.env.MAILSINK_STORE || undefined);

function addresses(field: AddressObject | AddressObject[] | undefined): Address[] {
  const objects = field === undefined ? [] : Array.isArray(field) ? field : [field];
  return objects.flatMap((o) => o.value).map((a) => ({ Name: a.name ?? '', Address: a.address ?? '' }));
}

async function toMessage(raw: Buffer, envelopeTo: string[]): Promise<Message> {
  const mail = await simpleParser(raw);
  const created = new Date().toISOString();
  const [To, Cc] = [addresses(mail.to), addresses(mail.cc)];
  const named = new Set([...To, ...Cc].map((a) => a.Address.toLowerCase()));
  return {
    ID: randomUUID(),
    MessageID: (mail.messageId ?? '').replace(/^<|>$/g, ''),
    From: addresses(mail.from)[0] ?? { Name: '', Address: '' },
    To,
    Cc,
    Bcc: envelopeTo.filter((a) => !named.has(a.toLowerCase())).map((a) => ({ Name: '', Address: a })),
    ReplyTo: addresses(mail.replyTo),
    Subject: mail.subject ?? '',
    Created: created,
    Date: mail.date?.toISOString() ?? created,
    Text: mail.text ?? '',
    HTML: typeof mail.html === 'string' ? mail.html : '',
    Size: raw.length,
    Attachments: mail.attachments.map((a, i) => ({
      PartID: String(i + 1),
      FileName: a.filename ?? '',
      ContentType: a.contentType,
      Size: a.size,
    })),
  };
}

const smtp = new SMTPServer({
  authOptional: true, // like Mailpit's --smtp-auth-accept-any: any credentials, or none
  allowInsecureAuth: true,
  disabledCommands: ['STARTTLS'], // plain SMTP only, as local Mailpit without TLS
  logger: false,
  onAuth: (auth, _session, callback) => callback(null, { user: auth.username ?? 'anonymous' }),
  onData: (stream, session, callback) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => {
      const envelopeTo = session.envelope.rcptTo.map((r) => r.address);
      toMessage(Buffer.concat(chunks), envelopeTo)
        .then((msg) => {
          store.add(msg);
          callback();
        })
        .catch((err: Error) => callback(err));
    });
  },
});
// A client that vanishes mid-session (a killed sender: ECONNRESET) is that connection's problem, not the
// server's; without a listener the 'error' event would end the process, as Mailpit never would.
smtp.on('error', (err: Error) => console.error(`mail-sink: SMTP connection error: ${err.message}`));
const http = createHttpServer(store);

async function main(): Promise<void> {
  smtp.listen(smtpPort, host);
  await once(smtp.server, 'listening');
  http.listen(httpPort, host);
  await once(http, 'listening');
  console.log(`mail-sink: SMTP on ${host}:${smtpPort}, HTTP on http://${host}:${httpPort}`);
}

function shutdown(): void {
  http.close();
  smtp.close(() => process.exit(0));
  setTimeout(() => process.exit(0), 2000).unref(); // open SMTP sessions must not block a stop
}

process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
main().catch((err: Error) => {
  console.error(`mail-sink: ${err.message}`);
  process.exit(1);
});
