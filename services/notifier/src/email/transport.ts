import nodemailer, { type Transporter } from 'nodemailer';

export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  html: string;
  /**
   * The same for every attempt at the same e-mail (the event id): it becomes the Message-ID, so that the one copy
   * a crash between the server's acceptance and our record of it can send twice is recognisably the same e-mail.
   */
  idempotencyKey: string;
}

/** The port the consumer sends through; nodemailer behind it. */
export interface MailSender {
  send(mail: OutgoingMail): Promise<void>;
  close(): void;
}

export interface SmtpOptions {
  host: string;
  port: number;
  auth?: { user: string; pass: string };
}

/** `smtp://[user[:pass]@]host[:port]` → connection options; user and password are percent-decoded. */
export function smtpOptionsFromUrl(smtpUrl: string): SmtpOptions {
  const url = new URL(smtpUrl);
  if (url.protocol !== 'smtp:') throw new Error('SMTP_URL must be an smtp:// URL');
  const options: SmtpOptions = { host: url.hostname, port: url.port ? Number(url.port) : 25 };
  if (url.username) {
    options.auth = { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) };
  }
  return options;
}

/**
 * A pooled SMTP transport: plain SMTP without STARTTLS (secure false, ignoreTLS true), as the local sink and
 * the cluster relay speak it, with timeouts so a hung server fails the send instead of stalling the partition.
 */
export function createSmtpTransport(smtpUrl: string): Transporter {
  const { host, port, auth } = smtpOptionsFromUrl(smtpUrl);
  return nodemailer.createTransport({
    pool: true,
    maxConnections: 2,
    host,
    port,
    ...(auth ? { auth } : {}),
    secure: false,
    ignoreTLS: true,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
  });
}

export function createMailSender(transport: Transporter, from: string): MailSender {
  const domain = /@([^\s>]+)/.exec(from)?.[1] ?? 'flowboard.local';
  return {
    async send(mail) {
      await transport.sendMail({
        from,
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
        messageId: `<${mail.idempotencyKey}@${domain}>`,
      });
    },
    close() {
      transport.close();
    },
  };
}
