import Redis from 'ioredis';
import { inviteCreatedV1, makeEvent, type InviteCreatedV1 } from '@flowboard/events';
import { createKafka, ensureTopics, KafkaPublisher } from '@flowboard/messaging';
import { createLogger, loadConfig } from '@flowboard/service-kit';
import { deleteMailTo, requireEnv, searchMail, uniqueSuffix, waitFor, waitForMail } from '@flowboard/testing';
import { createApp, type NotifierApp } from '../../src/app';
import { configSchema } from '../../src/config';
import { createMailSender, createSmtpTransport, type MailSender } from '../../src/email/transport';

jest.setTimeout(60_000);

const env = requireEnv('KAFKA_BROKERS', 'REDIS_URL', 'SMTP_URL', 'MAILPIT_URL');
const logger = createLogger('notifier-test', process.env.LOG_LEVEL ?? 'silent');
const kafka = createKafka({ brokers: env.KAFKA_BROKERS.split(','), clientId: 'notifier-test', logger });
const publisher = new KafkaPublisher(kafka);
const DLQ = 'notifier-dlq';

let app: NotifierApp;
let baseUrl: string;

/** The real SMTP transport behind a switch: while `down`, every send fails as a refused connection would. */
class SwitchableMailer implements MailSender {
  down = false;
  failures = 0;
  constructor(private readonly real: MailSender) {}
  async send(mail: Parameters<MailSender['send']>[0]) {
    if (this.down) {
      this.failures++;
      throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ESOCKET' });
    }
    await this.real.send(mail);
  }
  close() {
    this.real.close();
  }
}
let mailer: SwitchableMailer;
const recipients: string[] = [];

beforeAll(async () => {
  const config = loadConfig(configSchema, {
    HTTP_PORT: '0',
    METRICS_PORT: '0',
    KAFKA_BROKERS: env.KAFKA_BROKERS,
    REDIS_URL: env.REDIS_URL,
    SMTP_URL: env.SMTP_URL,
    PUBLIC_BASE_URL: 'http://flowboard.test:8080',
    RETRY_INITIAL_MS: '200',
    RETRY_MAX_MS: '1000',
  });
  mailer = new SwitchableMailer(createMailSender(createSmtpTransport(env.SMTP_URL), config.MAIL_FROM));
  app = createApp(config, { logger, mailer });
  baseUrl = `http://127.0.0.1:${await app.start()}`;
  await ensureTopics(kafka, [inviteCreatedV1.topic, DLQ]);
});

afterAll(async () => {
  await app?.stop();
  await publisher.disconnect();
  await Promise.all(recipients.map((to) => deleteMailTo(env.MAILPIT_URL, to)));
});

function inviteData(overrides: Partial<InviteCreatedV1> = {}): InviteCreatedV1 {
  const email = `invitee-${uniqueSuffix()}@example.test`;
  recipients.push(email);
  return {
    inviteId: 1 + Math.floor(Math.random() * 1e9),
    projectId: 1 + Math.floor(Math.random() * 1e9),
    projectName: 'Sudden <Valley>',
    roleName: 'Members',
    email,
    token: uniqueSuffix().padEnd(32, '0').slice(0, 32),
    senderName: 'Gob Bluth',
    expiresAt: '2030-01-01T00:00:00.000Z',
    ...overrides,
  };
}

const publish = (value: unknown, key: string) =>
  publisher.publish(inviteCreatedV1.topic, [
    { key, value: typeof value === 'string' ? value : JSON.stringify(value) },
  ]);

describe('notifier', () => {
  it('is live at once and ready once it has joined the consumer group', async () => {
    expect((await fetch(`${baseUrl}/livez`)).status).toBe(200);
    await waitFor(
      async () => ((await fetch(`${baseUrl}/readyz`)).status === 200 ? true : undefined),
      30_000,
      'readiness',
    );
  });

  it('e-mails the invite with its token and accept call', async () => {
    const data = inviteData();
    await publish(makeEvent(inviteCreatedV1, 'membership', data), String(data.projectId));

    const mail = await waitForMail(env.MAILPIT_URL, data.email, 30_000);
    expect(mail.Subject).toBe("You're invited to Sudden <Valley> on Flowboard");
    const accept = `POST http://flowboard.test:8080/api/v1/invites/${data.token}/accept`;
    expect(mail.Text).toContain(accept);
    expect(mail.HTML).toContain(accept);
    expect(mail.HTML).toContain('Sudden &lt;Valley&gt;');
  });

  it('sends one e-mail for an event delivered twice', async () => {
    const data = inviteData();
    const event = makeEvent(inviteCreatedV1, 'membership', data);
    const key = String(data.projectId);
    await publish(event, key);
    await publish(event, key);
    // Same key, same partition: once the marker's e-mail is there, both copies have been handled.
    const marker = inviteData({ projectId: data.projectId });
    await publish(makeEvent(inviteCreatedV1, 'membership', marker), key);
    await waitForMail(env.MAILPIT_URL, marker.email, 30_000);

    expect(await searchMail(env.MAILPIT_URL, data.email)).toHaveLength(1);
  });

  it('dead-letters an invalid message to notifier-dlq and keeps consuming', async () => {
    const key = `poison-${uniqueSuffix()}`;
    const consumer = kafka.consumer({ groupId: `notifier-test-${uniqueSuffix()}` });
    const dead: Array<{ value: string; reason: string }> = [];
    await consumer.connect();
    try {
      await consumer.subscribe({ topic: DLQ, fromBeginning: true });
      await consumer.run({
        eachMessage: async ({ message }) => {
          if (message.key?.toString() === key) {
            dead.push({
              value: message.value?.toString() ?? '',
              reason: message.headers?.['x-dlq-reason']?.toString() ?? '',
            });
          }
        },
      });
      await publish('{"not":"an event"', key);
      const after = inviteData();
      await publish(makeEvent(inviteCreatedV1, 'membership', after), key);

      await waitFor(
        async () => (dead.length ? true : undefined),
        30_000,
        'the poison message on notifier-dlq',
      );
      expect(dead[0]).toEqual({ value: '{"not":"an event"', reason: 'message is not JSON' });
      // The partition was not blocked by the poison message.
      await waitForMail(env.MAILPIT_URL, after.email, 30_000);
    } finally {
      await consumer.disconnect();
    }
  });

  it('waits out a mail server outage with its partition paused, not ready meanwhile, then sends each e-mail once', async () => {
    const readyz = async () => (await fetch(`${baseUrl}/readyz`)).status;
    const first = inviteData();
    const second = inviteData({ projectId: first.projectId }); // same key → same partition, behind the first
    mailer.down = true;
    try {
      await publish(makeEvent(inviteCreatedV1, 'membership', first), String(first.projectId));
      await publish(makeEvent(inviteCreatedV1, 'membership', second), String(second.projectId));
      await waitFor(async () => (mailer.failures >= 3 ? true : undefined), 30_000, 'three failed attempts');
      expect(await readyz()).toBe(503);
      expect(await searchMail(env.MAILPIT_URL, first.email)).toHaveLength(0);
    } finally {
      mailer.down = false;
    }
    await waitForMail(env.MAILPIT_URL, first.email, 30_000);
    await waitForMail(env.MAILPIT_URL, second.email, 30_000);
    await waitFor(async () => ((await readyz()) === 200 ? true : undefined), 10_000, 'readiness again');
    // Redeliveries of either event (the partition restarted from the failed one) send nothing more.
    const marker = inviteData({ projectId: first.projectId });
    await publish(makeEvent(inviteCreatedV1, 'membership', marker), String(marker.projectId));
    await waitForMail(env.MAILPIT_URL, marker.email, 30_000);
    expect(await searchMail(env.MAILPIT_URL, first.email)).toHaveLength(1);
    expect(await searchMail(env.MAILPIT_URL, second.email)).toHaveLength(1);
  });

  it('waits, Ready, for the claim of a notifier that died mid-send to expire, then sends the e-mail once', async () => {
    const data = inviteData();
    const event = makeEvent(inviteCreatedV1, 'membership', data);
    // What a notifier SIGKILLed mid-send leaves: its pending claim, with the time it has left.
    const redis = new Redis(env.REDIS_URL);
    const claimedAt = Date.now();
    try {
      await redis.set(`notifier:invite:${event.id}`, 'pending', 'PX', 3_000);
    } finally {
      redis.disconnect();
    }
    await publish(event, String(data.projectId));
    await new Promise((r) => setTimeout(r, 1_500));
    expect((await fetch(`${baseUrl}/readyz`)).status).toBe(200); // a wait by design, not an outage
    expect(await searchMail(env.MAILPIT_URL, data.email)).toHaveLength(0);
    await waitForMail(env.MAILPIT_URL, data.email, 30_000);
    const sentAfterMs = Date.now() - claimedAt;
    expect(sentAfterMs).toBeGreaterThanOrEqual(3_000);
    // Retried when the claim expired, not at the back-off of a failure (its ceiling here is 1 s, 60 s by default).
    expect(sentAfterMs).toBeLessThan(6_000);
    expect(await searchMail(env.MAILPIT_URL, data.email)).toHaveLength(1);
  });
});
