import { spawn } from 'node:child_process';
import net from 'node:net';
import Docker from 'dockerode';
import { Client } from 'pg';
import {
  RUN_LABEL,
  prepareEngine,
  startInfrastructure,
  type StartedInfrastructure,
} from '@flowboard/testing/containers';
import { waitFor } from '../../src/env';

// The containers module as the integration projects use it (its build, as their global setup loads it).

let docker: Docker;
const runContainers = (runId: string) =>
  docker.listContainers({ all: true, filters: JSON.stringify({ label: [`${RUN_LABEL}=${runId}`] }) });
const runNetworks = (runId: string) =>
  docker.listNetworks({ filters: JSON.stringify({ label: [`${RUN_LABEL}=${runId}`] }) });

/** Sends one inline Redis command and returns the first line of the answer. */
function redisCommand(url: string, command: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => socket.write(`${command}\r\n`));
    socket.once('data', (data) => {
      resolve(data.toString().split('\r\n')[0] ?? '');
      socket.end();
    });
    socket.once('error', reject);
  });
}

beforeAll(async () => {
  await prepareEngine();
  docker = new Docker();
});

describe('startInfrastructure', () => {
  let infrastructure: StartedInfrastructure | undefined;
  afterAll(() => infrastructure?.stop());

  it('starts what is asked, configured as compose.yaml does, each port published on loopback only', async () => {
    infrastructure = await startInfrastructure(['postgres', 'redis']);
    const { env, runId } = infrastructure;
    expect(Object.keys(env).sort()).toEqual(
      [
        'BOARDS_DATABASE_URL',
        'FILES_DATABASE_URL',
        'MEMBERSHIP_DATABASE_URL',
        'PG_ADMIN_URL',
        'REDIS_URL',
        'WEBHOOKS_DATABASE_URL',
      ].sort(),
    );

    // The init script of compose.yaml ran: each service's role owns its schema.
    const pg = new Client({ connectionString: env.BOARDS_DATABASE_URL });
    await pg.connect();
    try {
      const { rows } = await pg.query<{ owner: string }>(
        `SELECT pg_get_userbyid(nspowner) AS owner FROM pg_namespace WHERE nspname = 'boards'`,
      );
      expect(rows).toEqual([{ owner: 'boards' }]);
    } finally {
      await pg.end();
    }
    expect(await redisCommand(env.REDIS_URL!, 'PING')).toBe('+PONG');

    const containers = await runContainers(runId);
    expect(containers).toHaveLength(2);
    const bindings = containers.flatMap((c) => c.Ports.filter((p) => p.PublicPort));
    expect(bindings.length).toBeGreaterThanOrEqual(2);
    for (const binding of bindings) expect(binding.IP).toBe('127.0.0.1');
  });

  it('removes every container and the network of the run when stopped', async () => {
    const runId = infrastructure!.runId;
    await infrastructure!.stop();
    infrastructure = undefined;
    expect(await runContainers(runId)).toEqual([]);
    expect(await runNetworks(runId)).toEqual([]);
  });
});

describe('the watchdog', () => {
  it('removes the run of a test process that was killed before its teardown', async () => {
    // A process that starts a Redis and then hangs, as a Jest killed mid-run would.
    const child = spawn(
      process.execPath,
      [
        '-e',
        `require('@flowboard/testing/containers').startInfrastructure(['redis']).then(
           (run) => { console.log(run.runId); setInterval(() => {}, 1000); },
           (err) => { console.error(err); process.exit(1); })`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'], env: process.env },
    );
    const runId = await new Promise<string>((resolve, reject) => {
      child.stdout.once('data', (data: Buffer) => resolve(data.toString().trim()));
      child.once('exit', (code) => reject(new Error(`the child exited (${code}) before starting its run`)));
    });
    expect(await runContainers(runId)).toHaveLength(1);

    child.kill('SIGKILL');
    await waitFor(
      async () => ((await runContainers(runId)).length === 0 ? true : undefined),
      20_000,
      'the watchdog to remove the killed run',
    );
    expect(await runNetworks(runId)).toEqual([]);
  });
});
