import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { REPO_ROOT } from './images';

/** Where the integration tests' containers run, and why there. */
export interface Engine {
  dockerHost: string;
  /** One line for the test log: which engine, and where its images come from. */
  description: string;
}

/** Our machines' engine: Debian's dockerd on a socket of its own (deploy/cluster/lib.sh), never another engine's. */
const OWN_SOCKET = '/run/flowboard-docker.sock';
export const OWN_DOCKER_HOST = `unix://${OWN_SOCKET}`;
const DEFAULT_SOCKET = '/var/run/docker.sock';
const PREPARE_SCRIPT = path.join(REPO_ROOT, 'scripts/test-engine.sh');

/**
 * Finds the container engine for testcontainers and sets the environment it reads (DOCKER_HOST,
 * TESTCONTAINERS_*). In this order:
 * 1. DOCKER_HOST from the environment;
 * 2. a Docker engine on its usual socket, whose registry gives the official images, unless our own engine (3.) is
 *    already running;
 * 3. scripts/test-engine.sh: installs and starts Debian's docker.io on our own socket (or finds it running) and
 *    builds the images compose.yaml names locally, as there is no registry here. A fresh machine of ours takes this.
 */
export async function prepareEngine(): Promise<Engine> {
  // Ryuk (the reaper container) is an image on Docker Hub only and its Go module is not on the module proxy, so
  // our machines cannot have it; the runs clean up themselves instead (cleanup.ts), on every engine alike.
  process.env.TESTCONTAINERS_RYUK_DISABLED ??= 'true';
  let engine: Engine;
  if (process.env.DOCKER_HOST) {
    engine = { dockerHost: process.env.DOCKER_HOST, description: `the engine at DOCKER_HOST` };
  } else if (!existsSync(OWN_SOCKET) && existsSync(DEFAULT_SOCKET) && (await answers(DEFAULT_SOCKET))) {
    engine = { dockerHost: `unix://${DEFAULT_SOCKET}`, description: 'the Docker engine on its usual socket' };
  } else {
    engine = {
      dockerHost: runPrepareScript(),
      description: "Debian's docker.io (scripts/test-engine.sh), images: the local stand-ins",
    };
  }
  process.env.DOCKER_HOST = engine.dockerHost;
  // Our engine runs without a default bridge network (deploy/cluster/lib.sh says why), where testcontainers would
  // look for the host's address; the containers' ports are published on this host's loopback.
  if (engine.dockerHost === OWN_DOCKER_HOST) process.env.TESTCONTAINERS_HOST_OVERRIDE ??= '127.0.0.1';
  return engine;
}

/** Whether a Docker API answers its ping on this unix socket. */
function answers(socketPath: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = http.get({ socketPath, path: '/_ping', timeout: 2_000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
  });
}

/** Runs scripts/test-engine.sh (its progress on stderr, shown as it goes) and returns the DOCKER_HOST it prints. */
function runPrepareScript(): string {
  const run = spawnSync('bash', [PREPARE_SCRIPT], { stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
  const dockerHost = run.stdout?.trim().split('\n').pop() ?? '';
  if (run.status !== 0 || !dockerHost) {
    throw new Error(
      `No container engine for the integration tests: ${path.relative(REPO_ROOT, PREPARE_SCRIPT)} ` +
        `failed (exit ${run.status ?? run.signal}; its output is above). Without an engine, run them against ` +
        'a native stack: `npm start`, then `set -a; source .flowboard/infra.env; set +a` before `npx jest`.',
    );
  }
  return dockerHost;
}
