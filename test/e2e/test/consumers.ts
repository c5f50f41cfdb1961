import { inviteCreatedV1, projectDeletedV1, storyDeletedV1 } from '@flowboard/events';
import { createKafka } from '@flowboard/messaging';
import { createLogger } from '@flowboard/service-kit';
import { waitFor } from '@flowboard/testing';
import { api, createProject, infraSetting, signUp } from './support';

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
 * For a test that stopped or restarted Kafka: makes a story-deleted and a project-deleted event, then waits until
 * every consumer group (boards, files, notifier) has handled every event on its topics, so each service is shown
 * to consume again and the files after it find a working stack. (The invite topic gets no new event here: the
 * caller's own e-mails show the notifier's.) A group's state is not enough: after a broker restart the coordinator
 * shows the members from before it as Stable until their sessions time out, and a consumer that kafkajs gave up
 * on is never a member again.
 */
export async function waitUntilEveryConsumerCaughtUp(timeoutMs: number): Promise<void> {
  const owner = await signUp('caught-up');
  const project = await createProject(owner.key);
  const P = `/api/v1/projects/${project.id}`;
  const story = await api(`${P}/stories`, { method: 'POST', key: owner.key, body: { text: 'deleted' } });
  expect(story.status).toBe(200);
  expect((await api(`${P}/stories/${story.json.id}`, { method: 'DELETE', key: owner.key })).status).toBe(200);
  expect((await api(P, { method: 'DELETE', key: owner.key })).status).toBe(200);

  const kafka = createKafka({
    brokers: infraSetting('KAFKA_BROKERS').split(','),
    clientId: 'e2e-consumers',
    logger: createLogger('e2e-consumers', 'silent'),
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
