import type { Logger } from 'pino';

/** Bound for each step of a service's stop(), so the whole of it ends within onShutdown's timeout. */
export const SHUTDOWN_STEP_TIMEOUT_MS = 5_000;

/** Resolves true when `promise` settles (either way) within `ms`, false otherwise. */
export const settlesWithin = (promise: Promise<unknown>, ms: number): Promise<boolean> =>
  Promise.race([
    promise.then(
      () => true,
      () => true,
    ),
    new Promise<false>((resolve) => setTimeout(resolve, ms, false).unref()),
  ]);

const exitHooks: Array<() => Promise<void>> = [];

/** Runs after the app stopped, before the process exits (e.g. flushing the last spans); bounded by the timeout. */
export function beforeExit(hook: () => Promise<void>): void {
  exitHooks.push(hook);
}

const runExitHooks = () => Promise.allSettled(exitHooks.map((hook) => hook())).then(() => undefined);

/**
 * One drain sequence on SIGTERM/SIGINT: run `stop` (which stops intake, flushes, closes pools) and exit 0;
 * exit 1 if it fails or outlasts `timeoutMs` (keep it below Kubernetes' terminationGracePeriodSeconds).
 */
export function onShutdown(stop: () => Promise<void>, logger: Logger, timeoutMs = 25_000): void {
  let stopping = false;
  const handle = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      logger.error('shutdown timed out');
      process.exit(1);
    }, timeoutMs);
    timer.unref();
    stop()
      .then(runExitHooks)
      .then(
        () => {
          logger.info('stopped');
          process.exit(0);
        },
        (err: unknown) => {
          logger.error({ err }, 'shutdown failed');
          process.exit(1);
        },
      );
  };
  process.on('SIGTERM', handle);
  process.on('SIGINT', handle);
}

/** Starts a service from main.ts: a start-up failure is logged and exits non-zero. */
export async function runService(
  app: { start(): Promise<unknown>; stop(): Promise<void> },
  logger: Logger,
): Promise<void> {
  onShutdown(() => app.stop(), logger);
  try {
    await app.start();
  } catch (err) {
    logger.fatal({ err }, 'start-up failed');
    await app.stop().catch(() => undefined);
    process.exit(1);
  }
}
