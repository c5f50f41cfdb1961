import { status } from '@grpc/grpc-js';
import { inviteCreatedV1, parseEvent, type Envelope, type InviteCreatedV1 } from '@flowboard/events';
import { createKafka, ensureTopics } from '@flowboard/messaging';
import type { membership } from '@flowboard/proto';
import { createLogger } from '@flowboard/service-kit';
import { assertMatchesTopicSchema, uniqueSuffix, waitFor } from '@flowboard/testing';
import { codeOf, startHarness, type Harness } from './harness';

jest.setTimeout(60_000);

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const newUser = async () => (await h.signUp('gob', 'Gob Bluth')).user;

async function newProject(ownerId: number) {
  const { project, roles } = await h.newProject(ownerId);
  return { project, membersRole: roles.Members! };
}

describe('invites', () => {
  it('creates an invite whose event reaches Kafka through the outbox', async () => {
    const owner = await newUser();
    const { project, membersRole } = await newProject(owner.id);
    const email = `Invitee-${uniqueSuffix()}@Example.test`;

    const { invite } = await h.call<membership.CreateInviteResponse__Output>(
      'CreateInvite',
      { project_id: project.id, email, role_id: membersRole.id },
      owner.id,
    );
    expect(invite).toMatchObject({ email, sender: owner, role: { id: membersRole.id, name: 'Members' } });
    expect(invite!.token).toMatch(/^[0-9a-f]{32}$/);
    expect(invite!.create_time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);

    // The outbox row is committed with the invite and marked published by the relay.
    const row = await waitFor(
      async () => {
        const { rows } = await h.pool.query<{
          id: string;
          published_at: Date | null;
          key: string;
          payload: unknown;
        }>("SELECT id, published_at, key, payload FROM outbox WHERE payload->'data'->>'inviteId' = $1", [
          String(invite!.id),
        ]);
        return rows[0]?.published_at ? rows[0] : undefined;
      },
      20_000,
      'the outbox row to be published',
    );
    expect(row.key).toBe(String(project.id));
    assertMatchesTopicSchema(inviteCreatedV1.topic, row.payload); // the contract the notifier reads

    // ...and the event is on the topic.
    const kafka = createKafka({
      brokers: h.kafkaBrokers,
      clientId: 'membership-test',
      logger: createLogger('test', 'silent'),
    });
    await ensureTopics(kafka, [inviteCreatedV1.topic]);
    const consumer = kafka.consumer({ groupId: `membership-test-${uniqueSuffix()}` });
    const seen: Array<Envelope<InviteCreatedV1>> = [];
    const published: Array<Buffer | null> = [];
    try {
      await consumer.connect();
      await consumer.subscribe({ topic: inviteCreatedV1.topic, fromBeginning: true });
      await consumer.run({
        eachMessage: async ({ message }) => {
          // The topic is shared: other tests put poison messages on it, so skip what does not parse.
          let event: Envelope<InviteCreatedV1>;
          try {
            event = parseEvent(inviteCreatedV1, message.value);
          } catch {
            return; // not ours
          }
          if (event.id !== row.id) return;
          published.push(message.value);
          seen.push(event);
        },
      });
      await waitFor(async () => (seen.length ? true : undefined), 30_000, 'the invite event on Kafka');
    } finally {
      await consumer.disconnect();
    }
    for (const value of published) assertMatchesTopicSchema(inviteCreatedV1.topic, value); // what the notifier reads
    expect(seen[0]!.data).toEqual({
      inviteId: invite!.id,
      projectId: project.id,
      projectName: 'Sudden Valley',
      roleName: 'Members',
      email,
      token: invite!.token,
      senderName: 'Gob Bluth',
      expiresAt: expect.any(String),
    });
    const days = (Date.parse(seen[0]!.data.expiresAt) - Date.parse(seen[0]!.occurredAt)) / 86_400_000;
    expect(days).toBeCloseTo(14, 2);
  });

  it('checks access, the address, the role and duplicates', async () => {
    const owner = await newUser();
    const stranger = await newUser();
    const { project, membersRole } = await newProject(owner.id);
    const other = await newProject(owner.id);
    const email = `dup-${uniqueSuffix()}@example.test`;
    const invite = (body: object, userId = owner.id) =>
      h.call('CreateInvite', { project_id: project.id, email, role_id: membersRole.id, ...body }, userId);

    expect(await codeOf(invite({}, stranger.id))).toBe(status.NOT_FOUND);
    expect(await codeOf(invite({ email: 'not-an-address' }))).toBe(status.INVALID_ARGUMENT);
    await expect(invite({ role_id: other.membersRole.id })).rejects.toMatchObject({
      code: status.INVALID_ARGUMENT,
      metadata: expect.anything(),
    });
    const wrongRole = await invite({ role_id: other.membersRole.id }).catch(
      (e: { metadata: { get(k: string): unknown[] } }) => e,
    );
    expect(
      String((wrongRole as { metadata: { get(k: string): unknown[] } }).metadata.get('flowboard-problem')[0]),
    ).toBe('invalid-reference');

    expect(await codeOf(invite({}))).toBe('OK');
    expect(await codeOf(invite({ email: email.toUpperCase() }))).toBe(status.ALREADY_EXISTS);
    expect(await codeOf(invite({ email: owner.email }))).toBe(status.ALREADY_EXISTS);

    // A readwrite member may not invite.
    await h.pool.query('INSERT INTO role_members (role_id, user_id) VALUES ($1, $2)', [
      membersRole.id,
      stranger.id,
    ]);
    expect(await codeOf(invite({ email: `x-${uniqueSuffix()}@example.test` }, stranger.id))).toBe(
      status.PERMISSION_DENIED,
    );
  });

  it('lets only one of two concurrent invites for the same address through', async () => {
    const owner = await newUser();
    const { project, membersRole } = await newProject(owner.id);
    const email = `race-${uniqueSuffix()}@example.test`;
    const codes = await Promise.all(
      [email, email.toUpperCase(), email].map((e) =>
        codeOf(
          h.call('CreateInvite', { project_id: project.id, email: e, role_id: membersRole.id }, owner.id),
        ),
      ),
    );
    expect(codes.filter((c) => c === 'OK')).toHaveLength(1);
    expect(codes.filter((c) => c === status.ALREADY_EXISTS)).toHaveLength(2);
  });
});
