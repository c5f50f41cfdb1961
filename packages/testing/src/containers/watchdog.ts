// `node watchdog.js <pid> <run id>` (cleanup.ts starts it): waits for the test process <pid> to end, then removes
// the run's containers and networks.
import { removeRun } from './cleanup';

const [pid, runId] = [Number(process.argv[2]), process.argv[3] ?? ''];
if (!pid || !runId) throw new Error('usage: node watchdog.js <pid> <run id>');

function alive(p: number): boolean {
  try {
    process.kill(p, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const timer = setInterval(() => {
  if (alive(pid)) return;
  clearInterval(timer);
  removeRun(runId).then(
    () => process.exit(0),
    () => process.exit(1),
  );
}, 500);
