import * as grpc from '@grpc/grpc-js';
import { makeEvent, parseEvent, resourceChangedV1, storyDeletedV1 } from '@flowboard/events';
import { createKafka, ensureTopics, KafkaPublisher } from '@flowboard/messaging';
import { createPool, migrate } from '@flowboard/pg-kit';
import type { files } from '@flowboard/proto';
import { createLogger } from '@flowboard/service-kit';
import { changeEventLog, changeEventsInOutbox, tailTopic, waitFor } from '@flowboard/testing';
import type { FilesApp } from '../../src/app';
import { MIGRATIONS_DIR } from '../../src/db/migrations-dir';
import { callAs, env, randomId, startFiles, testConfig } from './harness';

// flowboard.resource-changed.v1 from files: what uploads, renames and deletes put in the outbox (in their
// transaction), compared with what GetAttachment answers; nothing for a refused write or the story-deleted
// cleanup; the relay publishes to Kafka in order.

const ACCOUNT = randomId();
let app: FilesApp;
let base: string;
let client: files.FilesServiceClient;
const db = createPool({
  connectionString: env.FILES_DATABASE_URL,
  schema: 'files',
  applicationName: 'files-events-test',
  max: 2,
});
const logger = createLogger('files-events-test', 'silent');
const kafka = createKafka({ brokers: env.KAFKA_BROKERS.split(','), clientId: 'files-events-test', logger });
const publisher = new KafkaPublisher(kafka);

beforeAll(async () => {
  await migrate(db, { schema: 'files', dir: MIGRATIONS_DIR });
  ({ app, base, client } = await startFiles(testConfig(`files-events-int-${ACCOUNT}`), logger));
});

afterAll(async () => {
  client?.close();
  await app?.stop();
  await publisher.disconnect();
  await db.end();
});

const WRITTEN_BY = { source: 'files' };
/** The project's change events in the outbox, in the order they were written (and are published). */
const eventsOf = (projectId: number) => changeEventsInOutbox(db, projectId, WRITTEN_BY);
/** Each call answers the events (their data) written since the previous call. */
const eventLog = (projectId: number) => changeEventLog(db, projectId, WRITTEN_BY);

/** Files uploaded through the internal HTTP port by `userId`, as the gateway proxies them. */
async function upload(
  p: number,
  s: number,
  names: string[],
  { userId = 42, limit = 2 ** 40 }: { userId?: number; limit?: number } = {},
) {
  const form = new FormData();
  for (const name of names) form.append('file', new Blob(['0123456789'], { type: 'text/plain' }), name);
  const res = await fetch(`${base}/internal/projects/${p}/stories/${s}/attachments`, {
    method: 'POST',
    headers: {
      'x-flowboard-user-id': String(userId),
      'x-request-id': 'files-events-test',
      'x-flowboard-account-id': String(ACCOUNT),
      'x-flowboard-storage-limit': String(limit),
    },
    body: form,
  });
  const body = (await res.json()) as { items?: Array<{ id: number }> };
  return { status: res.status, ids: (body.items ?? []).map((i) => i.id) };
}

type Method = 'GetAttachment' | 'RenameAttachment' | 'DeleteAttachment';
const call = <Res>(method: Method, request: object, userId = 42) =>
  callAs<Res>(client, userId, method, request);
const getAttachment = (project_id: number, story_id: number, attachment_id: number) =>
  call<files.GetAttachmentResponse__Output>('GetAttachment', { project_id, story_id, attachment_id }).then(
    (r) => r.attachment!,
  );
const failureCode = (promise: Promise<unknown>) =>
  promise.then(
    () => 'OK' as const,
    (err: grpc.ServiceError) => err.code,
  );

describe('attachment events', () => {
  it('an upload publishes attachment.created per file, by the uploader, about the story', async () => {
    const p = randomId();
    const next = eventLog(p);
    const { status, ids } = await upload(p, 4, ['a.txt', 'b.txt'], { userId: 31 });
    expect(status).toBe(200);
    expect(await next()).toEqual(
      await Promise.all(
        ids.map(async (id) => ({
          projectId: p,
          actorId: 31,
          type: 'attachment.created',
          subject: 'story:4',
          resource: await getAttachment(p, 4, id),
        })),
      ),
    );
    const { rows } = await db.query<{ headers: Record<string, string> }>(
      'SELECT headers FROM outbox WHERE topic = $1 AND key = $2',
      [resourceChangedV1.topic, String(p)],
    );
    expect(rows.map((r) => r.headers['x-request-id'])).toEqual(['files-events-test', 'files-events-test']);
  });

  it('a refused upload (over the storage limit) publishes nothing', async () => {
    const p = randomId();
    const next = eventLog(p);
    expect((await upload(p, 4, ['big.txt'], { limit: 1 })).status).toBe(402);
    expect(await next()).toEqual([]);
  });

  it('a rename publishes attachment.updated; the same name, a stale version or another story: nothing', async () => {
    const p = randomId();
    const [id] = (await upload(p, 4, ['plan.txt'])).ids;
    const next = eventLog(p);
    await next();
    const key = { project_id: p, story_id: 4, attachment_id: id! };

    await call('RenameAttachment', { ...key, file_name: 'final.txt' }, 43);
    const renamed = await getAttachment(p, 4, id!);
    expect(renamed).toMatchObject({ file_name: 'final.txt', version: 2 });
    expect(await next()).toEqual([
      { projectId: p, actorId: 43, type: 'attachment.updated', subject: 'story:4', resource: renamed },
    ]);

    await call('RenameAttachment', { ...key, file_name: 'final.txt' }, 43);
    expect(
      await failureCode(call('RenameAttachment', { ...key, file_name: 'x.txt', expected_version: 1 }, 43)),
    ).toBe(grpc.status.FAILED_PRECONDITION);
    expect(await failureCode(call('RenameAttachment', { ...key, story_id: 5, file_name: 'x.txt' }, 43))).toBe(
      grpc.status.NOT_FOUND,
    );
    expect(await next()).toEqual([]);
    expect(await getAttachment(p, 4, id!)).toEqual(renamed);
  });

  it('a delete publishes attachment.deleted with the attachment as it was; a stale one: nothing', async () => {
    const p = randomId();
    const [id] = (await upload(p, 4, ['plan.txt'])).ids;
    const key = { project_id: p, story_id: 4, attachment_id: id! };
    await call('RenameAttachment', { ...key, file_name: 'v2.txt' });
    const last = await getAttachment(p, 4, id!);
    const next = eventLog(p);
    await next();

    expect(await failureCode(call('DeleteAttachment', { ...key, expected_version: 1 }, 44))).toBe(
      grpc.status.FAILED_PRECONDITION,
    );
    expect(await next()).toEqual([]);
    await call('DeleteAttachment', key, 44);
    expect(await next()).toEqual([
      { projectId: p, actorId: 44, type: 'attachment.deleted', subject: 'story:4', resource: last },
    ]);
    expect(await failureCode(call('DeleteAttachment', key, 44))).toBe(grpc.status.NOT_FOUND);
    expect(await next()).toEqual([]);
  });

  it('the story-deleted cleanup publishes nothing (story.deleted covers it); a late upload: 404, nothing', async () => {
    await waitFor(async () => (app.consuming() ? true : undefined), 30_000, 'consumer joined');
    const p = randomId();
    const { ids } = await upload(p, 4, ['a.txt', 'b.txt']);
    const next = eventLog(p);
    await next();
    const event = makeEvent(storyDeletedV1, 'test', {
      projectId: p,
      storyId: 4,
      deletedBy: 42,
      deletedAt: new Date().toISOString(),
    });
    await publisher.publish(storyDeletedV1.topic, [{ key: String(p), value: JSON.stringify(event) }]);
    await waitFor(
      async () => {
        const { rowCount } = await db.query('SELECT 1 FROM attachments WHERE project_id = $1', [p]);
        return rowCount === 0 ? true : undefined;
      },
      20_000,
      'the story attachments purged',
    );
    expect(ids).toHaveLength(2);
    expect((await upload(p, 4, ['late.txt'])).status).toBe(404);
    expect(await next()).toEqual([]);
  });

  it('the relay publishes them to Kafka in order, keyed by the project, as they are in the outbox', async () => {
    await ensureTopics(kafka, [resourceChangedV1.topic]);
    const tail = await tailTopic(kafka, resourceChangedV1.topic, 'files-int-tail');
    try {
      const p = randomId();
      const [id] = (await upload(p, 4, ['plan.txt'])).ids;
      const key = { project_id: p, story_id: 4, attachment_id: id! };
      await call('RenameAttachment', { ...key, file_name: 'final.txt' });
      await call('DeleteAttachment', key);
      const outbox = await eventsOf(p);
      expect(outbox.map((e) => e.data.type)).toEqual([
        'attachment.created',
        'attachment.updated',
        'attachment.deleted',
      ]);
      const published = await tail.values(String(p), outbox.length);
      expect(published.map((value) => parseEvent(resourceChangedV1, value))).toEqual(outbox);
      // The relay marks rows published after Kafka acknowledged them: the messages can be read before that.
      await waitFor(
        async () =>
          (await db.query('SELECT 1 FROM outbox WHERE key = $1 AND published_at IS NULL', [String(p)]))
            .rowCount === 0 || undefined,
        15_000,
        'every outbox row of the project marked published',
      );
    } finally {
      await tail.stop();
    }
  });
});
