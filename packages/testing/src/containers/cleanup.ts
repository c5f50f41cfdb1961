import { spawn } from 'node:child_process';
import path from 'node:path';
import Docker from 'dockerode';

/**
 * Every container and network of one test run carries this label with the run's id; removing the run removes
 * exactly those, whichever way the run ended.
 */
export const RUN_LABEL = 'dev.flowboard.test-run';

/** Force-removes the run's containers (and their anonymous volumes), then its networks. Idempotent. */
export async function removeRun(runId: string, docker = new Docker()): Promise<void> {
  const filters = JSON.stringify({ label: [`${RUN_LABEL}=${runId}`] });
  const containers = await docker.listContainers({ all: true, filters });
  await Promise.all(
    containers.map((c) =>
      docker
        .getContainer(c.Id)
        .remove({ force: true, v: true })
        .catch(() => undefined),
    ),
  );
  const networks = await docker.listNetworks({ filters });
  await Promise.all(
    networks.map((n) =>
      docker
        .getNetwork(n.Id)
        .remove()
        .catch(() => undefined),
    ),
  );
}

/**
 * What Ryuk would do, from the host: a detached process that outlives this one, notices when it is gone (killed,
 * crashed, or done) and removes the run. A normal end removes the run itself first; this covers the rest.
 */
export function watchRun(runId: string): void {
  const watchdog = spawn(
    process.execPath,
    [path.join(__dirname, 'watchdog.js'), String(process.pid), runId],
    {
      detached: true,
      stdio: 'ignore',
      env: process.env, // DOCKER_HOST: the same engine
    },
  );
  watchdog.unref();
}
