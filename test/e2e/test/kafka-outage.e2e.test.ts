import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { deleteMailTo, requireEnv, searchMail, uniqueSuffix, waitForMail } from '@flowboard/testing';
import { waitUntilEveryConsumerCaughtUp } from './consumers';
import { api, createProject, MAILPIT_URL, signUp } from './support';

// Stops and restarts the test stack's Kafka through the same script `npm test` started it with.
const { FLOWBOARD_HOME } = requireEnv('FLOWBOARD_HOME');
const infra = (...args: string[]) =>
  execFileSync('bash', [path.resolve(__dirname, '../../../deploy/local/infra.sh'), ...args], {
    env: { ...process.env, FLOWBOARD_HOME },
    stdio: 'pipe',
    timeout: 120_000,
  });

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

    // boards and files consume again too (the e-mail showed the notifier does)
    await waitUntilEveryConsumerCaughtUp(90_000);
  }, 240_000);
});
