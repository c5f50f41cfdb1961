import { counter, inSpan, SpanKind, type MetricsRegistry } from '@flowboard/service-kit';
import type { MailSender } from './transport';

/**
 * The SMTP send as a span of the invite's trace (child of the consumer span) and as counters of sent and failed
 * e-mails. Neither carries the recipient: addresses are personal data.
 */
export function observedMailer(mailer: MailSender, registry: MetricsRegistry): MailSender {
  const sent = counter(registry, {
    name: 'flowboard_notifier_emails_sent_total',
    help: 'E-mails the SMTP server accepted',
  });
  const failed = counter(registry, {
    name: 'flowboard_notifier_emails_failed_total',
    help: 'E-mail sends that failed (each retry counts)',
  });
  return {
    async send(mail) {
      try {
        await inSpan('smtp send', { kind: SpanKind.CLIENT }, () => mailer.send(mail));
        sent.inc();
      } catch (err) {
        failed.inc();
        throw err;
      }
    },
    close: () => mailer.close(),
  };
}
