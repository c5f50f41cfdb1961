import * as grpc from '@grpc/grpc-js';
import type { files } from '@flowboard/proto';
import { createPool, migrate } from '@flowboard/pg-kit';
import { createLogger } from '@flowboard/service-kit';
import { startTcpProxy, type TcpProxy } from '@flowboard/testing';
import { MIGRATIONS_DIR } from '../../src/db/migrations-dir';
import { env, randomId, startFiles, testConfig, type StartedFiles } from './harness';

// PostgreSQL taken away from this files instance only (a relay in front of the real server, cut and restored): its
// gRPC calls answer UNAVAILABLE and its upload stream 503 (the gateway's 503 either way), nothing is half-written,
// and it serves again after.
let db: TcpProxy;
let service: StartedFiles;

beforeAll(async () => {
  // The schema first, straight to PostgreSQL: this file may run before the others that migrate it.
  const admin = createPool({
    connectionString: env.FILES_DATABASE_URL,
    schema: 'files',
    applicationName: 'files-outage-test',
    max: 1,
  });
  await migrate(admin, { schema: 'files', dir: MIGRATIONS_DIR }).finally(() => admin.end());
  db = await startTcpProxy(env.FILES_DATABASE_URL);
  service = await startFiles(
    testConfig(`files-outage-int-${randomId()}`, { DATABASE_URL: db.through(env.FILES_DATABASE_URL) }),
    createLogger('files-outage-test', 'silent'),
  );
});

afterAll(async () => {
  await service?.stop();
  await db?.close();
});

function listAttachments(projectId: number, storyId: number): Promise<files.ListAttachmentsResponse__Output> {
  const metadata = new grpc.Metadata();
  metadata.set('x-flowboard-user-id', '42');
  return new Promise((resolve, reject) =>
    service.client.ListAttachments(
      { project_id: projectId, story_id: storyId },
      metadata,
      { deadline: Date.now() + 10_000 },
      (err, res) => (err ? reject(err) : resolve(res!)),
    ),
  );
}

async function upload(projectId: number, storyId: number, name: string) {
  const form = new FormData();
  form.append('file', new Blob([`contents of ${name}`], { type: 'text/plain' }), name);
  const res = await fetch(`${service.base}/internal/projects/${projectId}/stories/${storyId}/attachments`, {
    method: 'POST',
    headers: {
      'x-flowboard-user-id': '42',
      'x-request-id': 'files-outage-test',
      'x-flowboard-account-id': String(randomId()),
      'x-flowboard-storage-limit': String(2 ** 40),
    },
    body: form,
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

it('answers UNAVAILABLE and 503 while its database is unreachable, and serves again once it is back', async () => {
  const [projectId, storyId] = [randomId(), randomId()];
  expect((await upload(projectId, storyId, 'before.txt')).status).toBe(200);

  await db.cut();
  try {
    const failed = await listAttachments(projectId, storyId).then(
      () => undefined,
      (err: grpc.ServiceError) => err,
    );
    expect([failed?.code, failed?.details]).toEqual([
      grpc.status.UNAVAILABLE,
      'A backing service is unavailable',
    ]);
    const refused = await upload(projectId, storyId, 'during.txt');
    expect([refused.status, refused.json.kind]).toEqual([503, 'Unavailable']);
  } finally {
    await db.restore();
  }

  const after = await listAttachments(projectId, storyId);
  expect(after.attachments.map((a) => a.file_name)).toEqual(['before.txt']);
});
