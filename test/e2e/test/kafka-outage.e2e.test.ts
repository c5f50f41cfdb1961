import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { createKafka } from '@flowboard/messaging';
import { createLogger } from '@flowboard/service-kit';
import { deleteMailTo, requireEnv, searchMail, uniqueSuffix, waitFor, waitForMail } from '@flowboard/testing';
import { api, createProject, MAILPIT_URL, signUp } from './support';
import { inviteCreatedV1, projectDeletedV1, storyDeletedV1 } from '@flowboard/events';

// Stops and restarts the test stack's Kafka through the same script `npm test` started it with.
const { FLOWBOARD_HOME } = requireEnv('FLOWBOARD_HOME');
const infra = (...args: string[]) =>
  execFileSync('bash', [path.resolve(__dirname, '../../../deploy/local/infra.sh'), ...args], {
    env: { ...process.env, FLOWBOARD_HOME },
    stdio: 'pipe',
    timeout: 120_000,
  });

type Admin = ReturnType<ReturnType<typeof createKafka>['admin']>;

/** The stack's consumer groups and the topics each consumes. */
const GROUPS: Record<string, string[]> = {
  boards: [projectDeletedV1.topic],
  files: [projectDeletedV1.topic, storyDeletedV1.topic],
  notifier: [inviteCreatedV1.topic],
};

/** Per group, its partitions whose committed offset is short of the end of the topic: events not yet handled. */
async function unhandledEvents(admin: Admin): Promise<string[]> {
  const behind: string[] = [];
  for (const [groupId, topics] of Object.entries(GROUPS)) {
    const committed = await admin.fetchOffsets({ groupId, topics });
    for (const { topic, partitions } of committed) {
      const ends = new Map((await admin.fetchTopicOffsets(topic)).map((p) => [p.partition, Number(p.high)]));
      for (const { partition, offset } of partitions) {
        const end = ends.get(partition) ?? 0;
        // -1: nothing committed yet, which is only right for a partition that never held an event (end 0)
        const next = Math.max(0, Number(offset));
        if (next < end) behind.push(`${groupId} ${topic}/${partition} at ${offset} of ${end}`);
      }
    }
  }
  return behind;
}

/**
 * Waits until every consumer group has handled every event on its topics. The caller has just made events on all
 * of them, after the restart, so this proves each service consumes again: a group's state is not enough (after a
 * broker restart the coordinator shows the members from before it as Stable until their sessions time out, and a
 * consumer that kafkajs gave up on is never a member again). This file restarted Kafka; it leaves the stack working
 * for the files after it.
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
  let behind: string[] = ['not checked yet'];
  try {
    await waitFor(
      async () => {
        behind = await unhandledEvents(admin).catch((err: Error) => [err.message]);
        return behind.length === 0 ? true : undefined;
      },
      timeoutMs,
      'every consumer group to handle every event',
    );
  } catch (err) {
    throw new Error(`${(err as Error).message}; still behind: ${behind.join('; ')}`);
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
    const story = await api(`/api/v1/projects/${project.id}/stories`, {
      method: 'POST',
      key: owner.key,
      body: { text: 'deleted after the outage' },
    });
    expect(story.status).toBe(200);
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

    // Events for every consumer after the restart (boards and files: deletions), then all of them handled.
    const P = `/api/v1/projects/${project.id}`;
    expect((await api(`${P}/stories/${story.json.id}`, { method: 'DELETE', key: owner.key })).status).toBe(
      200,
    );
    expect((await api(P, { method: 'DELETE', key: owner.key })).status).toBe(200);
    await waitForConsumers(90_000);
  }, 240_000);
});
