import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import net from 'node:net';
import path from 'node:path';
import { requireEnv, waitFor } from '@flowboard/testing';
import { infraSetting } from './support';

const GATEWAY_DIR = path.resolve(__dirname, '../../../services/gateway');

/**
 * A gateway process of a test's own, beside the stack's: every test file shares the stack's gateway, so a test that
 * stops or restarts one starts its own. The built `services/gateway/dist/main.js` with the settings
 * deploy/local/services.sh gives the stack's gateway (the back ends' ports, Redis, Kafka), on free ports of its own
 * that it keeps across restarts. It logs warnings and errors only, kept for the message of a failed start.
 */
export class OwnGateway {
  private child: ChildProcess | undefined;
  private output = '';
  /** How long its last start took until it answered /readyz (listening; its stream may still answer 503). */
  readyAfterMs = 0;

  private constructor(
    readonly port: number,
    private readonly metricsPort: number,
    private readonly settings: Readonly<Record<string, string>>,
  ) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** `settings`: environment of its own beside the stack's (e.g. a shorter KEY_USE_FLUSH_SECONDS). */
  static async start(settings: Readonly<Record<string, string>> = {}): Promise<OwnGateway> {
    const gateway = new OwnGateway(await freePort(), await freePort(), settings);
    await gateway.restart();
    return gateway;
  }

  /** Starts it (again, on the same ports) and waits until it is ready. */
  async restart(): Promise<void> {
    if (this.child) throw new Error('the gateway is running already');
    const started = performance.now();
    const child = spawn(process.execPath, ['dist/main.js'], {
      cwd: GATEWAY_DIR,
      env: this.env(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    const keep = (chunk: Buffer) => {
      this.output = (this.output + chunk.toString()).slice(-4_000);
    };
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    // Never left behind holding its ports, whatever ends the test run (a timeout skips the test's `finally`).
    const orphaned = () => child.kill('SIGKILL');
    process.once('exit', orphaned);
    child.once('exit', () => {
      process.off('exit', orphaned);
      if (this.child === child) this.child = undefined;
    });
    await waitFor(
      async () => {
        if (this.child !== child) throw new Error(`the gateway exited at start:\n${this.output}`);
        const res = await fetch(`${this.url}/readyz`).catch(() => undefined);
        return res?.status === 200 ? true : undefined;
      },
      60_000,
      `the gateway on port ${this.port} to be ready`,
    );
    this.readyAfterMs = performance.now() - started;
  }

  /** Waits until it streams `projectPath`'s changes (503 while its feed reads Kafka back at start). */
  async streamReady(projectPath: string, key: string): Promise<void> {
    await waitFor(
      async () => {
        const res = await fetch(`${this.url}${projectPath}/events?wait=0`, {
          headers: { 'X-Zen-ApiKey': key },
        }).catch(() => undefined);
        return res?.status === 200 ? true : undefined;
      },
      60_000,
      `the gateway on port ${this.port} to stream`,
    );
  }

  /**
   * Stops it: SIGTERM, as a restart sends (it ends its streams with `event: closed` and drains; SIGKILL if that
   * takes 30 s), or SIGKILL, as a crash (the connections just drop).
   */
  async stop(signal: 'SIGTERM' | 'SIGKILL' = 'SIGTERM'): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    await exited;
    clearTimeout(timer);
    this.child = undefined;
  }

  private env(): NodeJS.ProcessEnv {
    const local = (name: string) => `127.0.0.1:${requireEnv(name)[name]}`;
    return {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      LOG_LEVEL: 'warn',
      PORT: String(this.port),
      METRICS_PORT: String(this.metricsPort),
      REDIS_URL: infraSetting('REDIS_URL'),
      KAFKA_BROKERS: infraSetting('KAFKA_BROKERS'),
      BOARDS_ADDR: local('FLOWBOARD_BOARDS_PORT'),
      MEMBERSHIP_ADDR: local('FLOWBOARD_MEMBERSHIP_PORT'),
      FILES_ADDR: local('FLOWBOARD_FILES_PORT'),
      FILES_HTTP_URL: `http://${local('FLOWBOARD_FILES_HTTP_PORT')}`,
      WEBHOOKS_ADDR: local('FLOWBOARD_WEBHOOKS_PORT'),
      ...this.settings,
    };
  }
}

/** A port nothing listens on now (the kernel's pick). */
async function freePort(): Promise<number> {
  const server = net.createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as net.AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}
