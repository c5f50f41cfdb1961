// Where a scenario's CPU goes, process by process, and when the work it left behind is done (docs/benchmarks.md,
// "How to run"). Linux only: everything comes from /proc.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';

const TICK_MS = 10; // USER_HZ is 100 on Linux

/** Busy CPU time of the whole machine so far, in ms (/proc/stat: user..steal minus idle and iowait). */
export async function machineCpuMs() {
  const stat = await readFile('/proc/stat', 'utf8').catch(() => undefined);
  if (!stat) return undefined;
  const [, ...ticks] = stat.split('\n')[0].trim().split(/\s+/).map(Number);
  const [user, nice, system, , , irq, softirq, steal] = ticks;
  return (user + nice + system + irq + softirq + steal) * TICK_MS;
}

/** Processes this load generator started, by pid (nameProcess): counted apart from the load generator itself. */
const ownChildren = new Map();

/** Counts `pid` (a process this load generator started, e.g. a ceiling's server) under `name` from now on. */
export function nameProcess(pid, name) {
  ownChildren.set(pid, name);
}

/**
 * The stack's processes by the pid they descend from: the pid files deploy/local writes (every service and every
 * piece of infrastructure but PostgreSQL) and PostgreSQL's postmaster.pid. Descent, not command names, so another
 * stack on the same machine (a test run's containers) is never counted as this one's.
 */
async function stackRoots(home) {
  const roots = new Map(); // pid -> name
  const runDir = path.join(home, 'run');
  const files = await readdir(runDir).catch(() => []);
  const readPid = async (file) =>
    Number((await readFile(file, 'utf8').catch(() => '')).split('\n')[0].trim());
  for (const file of files.filter((f) => f.endsWith('.pid'))) {
    const pid = await readPid(path.join(runDir, file));
    if (pid > 0) roots.set(pid, path.basename(file, '.pid'));
  }
  const postmaster = await readPid(path.join(home, 'postgres', 'data', 'postmaster.pid'));
  if (postmaster > 0) roots.set(postmaster, 'postgres');
  roots.set(process.pid, 'load generator');
  for (const [pid, name] of ownChildren) roots.set(pid, name);
  return roots;
}

/**
 * CPU ms so far per name: the user + system time of each live process of the stack (and of its reaped children),
 * summed by the root it descends from (stackRoots). What is not the stack's is left to `other` (cpuBetween).
 */
export async function cpuByProcess(home) {
  const roots = await stackRoots(home);
  const processes = new Map(); // pid -> { parent, ms }
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => undefined);
    if (!stat) continue;
    // The command name is in parentheses and may hold spaces; the fields after it are space-separated.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
    processes.set(Number(entry), { parent: Number(fields[1]), ms: ticks * TICK_MS });
  }
  const owner = new Map(roots);
  const ownerOf = (pid) => {
    const seen = [];
    let at = pid;
    while (at > 1 && !owner.has(at) && processes.has(at) && seen.length < 64) {
      seen.push(at);
      at = processes.get(at).parent;
    }
    const name = owner.get(at) ?? null;
    for (const p of seen) owner.set(p, name);
    return name;
  };
  const totals = {};
  for (const [pid, { ms }] of processes) {
    const name = ownerOf(pid);
    if (name) totals[name] = (totals[name] ?? 0) + ms;
  }
  return totals;
}

/** A snapshot of the machine's and each process's CPU, to subtract from a later one. */
export async function cpuSnapshot(home) {
  const [machine, byProcess] = await Promise.all([machineCpuMs(), cpuByProcess(home)]);
  return { at: Date.now(), machine, byProcess };
}

/** CPU ms between two snapshots, per process, with `other` (the rest of the machine) and `total`. */
export function cpuBetween(before, after) {
  const spent = {};
  let named = 0;
  for (const [name, ms] of Object.entries(after.byProcess)) {
    // A process that restarted in between shows less than before: count what it has now.
    const delta = ms - (before.byProcess[name] ?? 0);
    spent[name] = delta >= 0 ? delta : ms;
    named += spent[name];
  }
  const total = after.machine - before.machine;
  spent.other = Math.max(0, total - named);
  spent.total = total;
  return spent;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Each process's CPU per second (ms/s) at rest, and the machine's (`total`): what an idle stack costs. */
export async function restingRates(home, ms = 3_000) {
  const before = await cpuSnapshot(home);
  await sleep(ms);
  return perSecond(cpuBetween(before, await cpuSnapshot(home)), ms);
}

const perSecond = (spent, ms) =>
  Object.fromEntries(Object.entries(spent).map(([k, v]) => [k, (v * 1000) / ms]));

/**
 * The CPU a scenario left behind: spent between `from` (the end of its measured window) and `to`, less what each
 * process spends at rest (`resting`, from restingRates) over that time.
 */
export function deferredCpu(from, to, resting) {
  const seconds = (to.at - from.at) / 1000;
  const spent = cpuBetween(from, to);
  return Object.fromEntries(
    Object.entries(spent).map(([name, ms]) => [name, Math.max(0, ms - (resting[name] ?? 0) * seconds)]),
  );
}

/**
 * Waits until the work a scenario left behind is done: `pending()` (e.g. outbox rows not yet published) is 0 and
 * the machine has been back at its resting CPU rate (`restingRate` ms/s, + 10 % of a core) for two consecutive
 * seconds, which covers what no counter shows (Kafka, the consumers and what they call). Gives up after
 * `timeoutMs`. Resolves whether the stack got quiet, and when its work ended (ms since the wait began: the two
 * quiet seconds are not part of it).
 */
export async function waitUntilQuiet({ restingRate, pending = async () => 0, timeoutMs = 120_000 }) {
  const started = Date.now();
  const threshold = restingRate + 100;
  let quietSeconds = 0;
  while (Date.now() - started < timeoutMs) {
    const before = await machineCpuMs();
    const [, backlog] = await Promise.all([sleep(1_000), pending()]);
    const rate = (await machineCpuMs()) - before; // ms in about one second
    quietSeconds = rate <= threshold && backlog === 0 ? quietSeconds + 1 : 0;
    if (quietSeconds === 2) return { quiet: true, busyMs: Date.now() - started - 2_000 };
  }
  return { quiet: false, busyMs: Date.now() - started };
}
