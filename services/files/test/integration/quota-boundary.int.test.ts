import { randomBytes } from 'node:crypto';
import { createPool, migrate } from '@flowboard/pg-kit';
import type { files } from '@flowboard/proto';
import { createLogger } from '@flowboard/service-kit';
import { MIGRATIONS_DIR } from '../../src/db/migrations-dir';
import { callAs, env, randomId, startFiles, testConfig, type StartedFiles } from './harness';

// The quota at its exact boundary under concurrent uploads (issue 32): every upload that fits is accepted and
// every one that does not is refused, whatever the interleaving; never over the limit, not even for a moment.
// Each scenario runs ROUNDS times in a row with a fresh account, so a race that shows one time in a few fails.
jest.setTimeout(180_000);

const ROUNDS = 20;
const MiB = 1024 * 1024;
const USER = 42;

let started: StartedFiles;
const db = createPool({
  connectionString: env.FILES_DATABASE_URL,
  schema: 'files',
  applicationName: 'files-quota-boundary-test',
  max: 2,
});
const logger = createLogger('files-quota-boundary-test', 'silent');

beforeAll(async () => {
  await migrate(db, { schema: 'files', dir: MIGRATIONS_DIR });
  started = await startFiles(testConfig(`files-quota-boundary-int-${randomId()}`), logger);
});

afterAll(async () => {
  await started?.stop();
  await db.end();
});

async function upload(p: number, s: number, account: number, limit: number, data: Buffer, name: string) {
  const body = new FormData();
  body.append('file', new Blob([new Uint8Array(data)]), name);
  const res = await fetch(`${started.base}/internal/projects/${p}/stories/${s}/attachments`, {
    method: 'POST',
    headers: {
      'x-flowboard-user-id': String(USER),
      'x-flowboard-account-id': String(account),
      'x-flowboard-storage-limit': String(limit),
    },
    body,
  });
  const json = (await res.json()) as Record<string, unknown>;
  return { status: res.status, json };
}

const usage = (accountId: number) =>
  callAs<files.GetStorageUsageResponse__Output>(started.client, USER, 'GetStorageUsage', {
    account_id: accountId,
  });

/**
 * One round: an account holding `stored` bytes with `limit`, sent `count` uploads of `size` bytes at once.
 * Answers how many were accepted, after checking that the ledger, the rows and the in-flight peak agree.
 */
async function round(options: { stored: number; limit: number; count: number; size: number }) {
  const { stored, limit, count, size } = options;
  const p = randomId();
  const account = randomId();
  expect((await upload(p, 1, account, limit, randomBytes(stored), 'small')).status).toBe(200);

  // used + reserved sampled straight from the ledger while the uploads race: never past the limit.
  let peak = 0;
  let racing = true;
  const sampler = (async () => {
    while (racing) {
      const { rows } = await db.query<{ total: string }>(
        'SELECT (used_bytes + reserved_bytes)::text AS total FROM account_storage WHERE account_id = $1',
        [account],
      );
      peak = Math.max(peak, Number(rows[0]?.total ?? 0));
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  })();
  const results = await Promise.all(
    Array.from({ length: count }, (_, i) => upload(p, i + 2, account, limit, randomBytes(size), `f${i}`)),
  ).finally(() => (racing = false));
  await sampler;

  for (const r of results) {
    if (r.status !== 200) expect(r).toMatchObject({ status: 402, json: { problem: 'plan-limit' } });
  }
  const accepted = results.filter((r) => r.status === 200).length;
  expect(peak).toBeLessThanOrEqual(limit);
  expect(await usage(account)).toEqual({ used_bytes: stored + accepted * size, reserved_bytes: 0 });
  const rows = await db.query('SELECT 1 FROM attachments WHERE project_id = $1', [p]);
  expect(rows.rowCount).toBe(1 + accepted);
  const reservations = await db.query('SELECT 1 FROM upload_reservations WHERE account_id = $1', [account]);
  expect(reservations.rowCount).toBe(0);
  return accepted;
}

describe('storage quota at the exact boundary, concurrent uploads', () => {
  it(`3 MiB + 10 B limit, 5 B stored, eight 1 MiB uploads at once: exactly three accepted, ${ROUNDS} rounds in a row`, async () => {
    const accepted: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      accepted.push(await round({ stored: 5, limit: 3 * MiB + 10, count: 8, size: MiB }));
    }
    expect(accepted).toEqual(Array.from({ length: ROUNDS }, () => 3));
  });

  it('room for exactly three: three accepted, filling the account to the byte; one byte less: two', async () => {
    const accepted: number[] = [];
    for (let i = 0; i < 5; i++) {
      accepted.push(await round({ stored: 5, limit: 3 * MiB + 5, count: 6, size: MiB }));
      accepted.push(await round({ stored: 5, limit: 3 * MiB + 4, count: 6, size: MiB }));
    }
    expect(accepted).toEqual(Array.from({ length: 5 }, () => [3, 2]).flat());
  });
});
