import * as grpc from '@grpc/grpc-js';
import type { membership } from '@flowboard/proto';
import { requireEnv, startTcpProxy, type TcpProxy } from '@flowboard/testing';
import { startHarness, type Harness } from './harness';

// PostgreSQL taken away from this membership instance only (a relay in front of the real server, cut and
// restored): reads and writes answer UNAVAILABLE (the gateway's 503), nothing is half-written, and it serves again.
const { MEMBERSHIP_DATABASE_URL } = requireEnv('MEMBERSHIP_DATABASE_URL');
let db: TcpProxy;
let h: Harness;

beforeAll(async () => {
  db = await startTcpProxy(MEMBERSHIP_DATABASE_URL);
  h = await startHarness({ DATABASE_URL: db.through(MEMBERSHIP_DATABASE_URL) });
});

afterAll(async () => {
  await h?.close();
  await db?.close();
});

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (err: grpc.ServiceError) => err,
  );

it('answers UNAVAILABLE while its database is unreachable, and serves again once it is back', async () => {
  const { user } = await h.signUp('outage');
  const { project } = await h.newProject(user.id, 'Before the outage');

  await db.cut();
  try {
    for (const failed of [
      await failure(h.call('GetCurrentUser', {}, user.id)),
      await failure(h.call('CreateProject', { name: 'During the outage' }, user.id)),
    ]) {
      expect(failed.code).toBe(grpc.status.UNAVAILABLE);
      expect(failed.details).toBe('A backing service is unavailable');
    }
  } finally {
    await db.restore();
  }

  const me = await h.call<membership.GetCurrentUserResponse__Output>('GetCurrentUser', {}, user.id);
  expect(me.user?.id).toBe(user.id);
  const projects = await h.pool.query<{ name: string }>('SELECT name FROM projects WHERE owner_id = $1', [
    user.id,
  ]);
  expect(projects.rows.map((r) => r.name)).toEqual([project.name]);
});
