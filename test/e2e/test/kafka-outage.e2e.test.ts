import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { createKafka } from '@flowboard/messaging';
import { createLogger } from '@flowboard/service-kit';
import { deleteMailTo, requireEnv, searchMail, uniqueSuffix, waitFor, waitForMail } from '@flowboard/testing';
import { api, createProject, MAILPIT_URL, signUp } from './support';

// Stops and restarts the test stack's Kafka through the same script `npm test` started it with.
const { FLOWBOARD_HOME } = requireEnv('FLOWBOARD_HOME');
const infra = (...args: string[]) =>
  execFileSync('bash', [path.resolve(__dirname, '../../../deploy/local/infra.sh'), ...args], {
    env: { ...process.env, FLOWBOARD_HOME },
    stdio: 'pipe',
    timeout: 120_000,
  });

/** The stack's consumer groups: each must be a member again before the next test file relies on its events. */
const GROUPS = ['boards', 'files', 'notifier'];

/**
 * Waits until every consumer group is Stable with a member: after a broker restart, a consumer reconnects with
 * back-off and a member from before the restart lingers until its session times out, so events can take tens of
 * seconds to flow again. This file restarted Kafka; it leaves the stack working for the files after it.
 */
async function waitForConsumers(timeoutMs: number): Promise<void> {
  const brokers = /^export KAFKA_BROKERS=(.*)$/m.exec(
    readFileSync(path.join(FLOWBOARD_HOME, 'infra.env'), 'utf8'),
  );
  const kafka = createKafka({
    brokers: (brokers?.[1] ?? '').trim().split(','),
    clientId: 'e2e-kafka-outage',
    logger: createLogger('e2e-kafka-outage', 'silent'),
  });
  const admin = kafka.admin();
  await admin.connect();
  try {
    await waitFor(
      async () => {
        const { groups } = await admin.describeGroups(GROUPS).catch(() => ({ groups: [] }));
        const stable = groups.filter((g) => g.state === 'Stable' && g.members.length > 0);
        return stable.length === GROUPS.length ? true : undefined;
      },
      timeoutMs,
      `consumer groups ${GROUPS.join(', ')} stable again`,
    );
  } finally {
    await admin.disconnect();
  }
}

describe('an invite created while Kafka is down', () => {
  afterAll(() => {
    infra('start', 'kafka'); // leave the stack as we found it, even if the test failed
  });

  it('is accepted (200) and its e-mail arrives exactly once after Kafka is back', async () => {
    const owner = await signUp('outage');
    const project = await createProject(owner.key, 'Outage Board');
    const roles = await api(`/api/v1/projects/${project.id}?with=roles`, { key: owner.key });
    const role = roles.json.roles[1].id;
    const email = `outage-${uniqueSuffix()}@example.test`;
    await deleteMailTo(MAILPIT_URL, email);

    infra('stop', 'kafka');
    const res = await api(`/api/v1/projects/${project.id}/invites`, {
      method: 'POST',
      key: owner.key,
      body: { email, role },
    });
    expect(res.status).toBe(200);
    await new Promise((r) => setTimeout(r, 2000));
    expect(await searchMail(MAILPIT_URL, email)).toHaveLength(0);

    infra('start', 'kafka');
    const mail = await waitForMail(MAILPIT_URL, email, 90_000);
    expect(mail.Text).toContain(res.json.token);
    await new Promise((r) => setTimeout(r, 3000));
    expect(await searchMail(MAILPIT_URL, email)).toHaveLength(1);
    await waitForConsumers(90_000);
  }, 240_000);
});
