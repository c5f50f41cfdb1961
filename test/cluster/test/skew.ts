import { Load, lostWrites, type LoadReport } from './load';
import {
  counterSum,
  imageArgs,
  mailCounts,
  podMetrics,
  pods,
  readImages,
  type ImageRef,
  type PodInfo,
} from './support';

/**
 * What the version-skew phases share: the two builds (the previous release's images, this tree's), the order in
 * which services are upgraded, what a one-service change may touch, and the load's verdict.
 */
export const BACK_ENDS = ['boards', 'membership', 'files', 'webhooks', 'notifier'];
export const ORDER = [...BACK_ENDS, 'gateway'];
export const MIGRATING = new Set(['boards', 'membership', 'files', 'webhooks']);

export function builds(): { previous: Map<string, ImageRef>; head: Map<string, ImageRef> } {
  const previous = process.env.FLOWBOARD_CLUSTER_PREVIOUS_IMAGES;
  const head = process.env.FLOWBOARD_CLUSTER_IMAGES;
  if (!previous || !head)
    throw new Error(
      'FLOWBOARD_CLUSTER_PREVIOUS_IMAGES and FLOWBOARD_CLUSTER_IMAGES are not set (run npm run test:cluster)',
    );
  return { previous: readImages(previous), head: readImages(head) };
}

/** `--set-string` arguments for a mix: each service at the build `at(svc)` says. */
export function mixArgs(at: (svc: string) => ImageRef): string[] {
  return imageArgs(new Map(ORDER.map((svc) => [svc, at(svc)])));
}

/** The live (not terminating) pods, per component. */
export async function livePods(): Promise<Map<string, PodInfo[]>> {
  const byComponent = new Map<string, PodInfo[]>(ORDER.map((c) => [c, []]));
  for (const p of await pods()) if (!p.deleting) byComponent.get(p.component)?.push(p);
  return byComponent;
}

/**
 * The live pods once each component has as many as `like` (a rollout's old pods may linger a moment after helm's
 * --wait returns, before they are marked for deletion).
 */
export async function settledPods(
  like: Map<string, PodInfo[]>,
  timeoutMs = 60_000,
): Promise<Map<string, PodInfo[]>> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const now = await livePods();
    const settled = ORDER.every((c) => now.get(c)!.length === like.get(c)!.length);
    if (settled || Date.now() > until) return now;
    await new Promise((r) => setTimeout(r, 1_000));
  }
}

export interface Change {
  /** Components whose pods were all replaced (by new uids), each with how many before → after. */
  replaced: string[];
  /** Components with a pod kept, lost, or restarted that should not have been: the reasons. */
  unexpected: string[];
  /** Container restarts (not replacements) per component during the change. */
  restarts: Record<string, number>;
  /** Components whose new pods ran the `migrate` init container (exit 0). */
  migrated: string[];
  /** Figures: "boards 1→1 pods replaced". */
  summary: string;
}

/**
 * Compares the pods before and after a change expected to roll exactly `rolled`: each of them must have only new
 * pods (new uids), Ready, at `expect(svc)`'s image and version, which ran their migrations if the service has any;
 * every other component must keep the same pods (same uids) with the same restart counts.
 */
export function compare(
  before: Map<string, PodInfo[]>,
  after: Map<string, PodInfo[]>,
  rolled: string[],
  expect: (svc: string) => ImageRef,
): Change {
  const change: Change = { replaced: [], unexpected: [], restarts: {}, migrated: [], summary: '' };
  const parts: string[] = [];
  for (const c of ORDER) {
    const was = before.get(c) ?? [];
    const now = after.get(c) ?? [];
    const oldUids = new Set(was.map((p) => p.uid));
    const kept = now.filter((p) => oldUids.has(p.uid));
    const restarts = kept.reduce(
      (n, p) => n + p.restarts - (was.find((q) => q.uid === p.uid)?.restarts ?? 0),
      0,
    );
    change.restarts[c] = restarts;
    if (rolled.includes(c)) {
      const want = expect(c);
      if (kept.length) change.unexpected.push(`${c}: ${kept.length} pod(s) not replaced`);
      if (now.length !== was.length)
        change.unexpected.push(`${c}: ${was.length} pods before, ${now.length} after`);
      for (const p of now) {
        if (!p.ready) change.unexpected.push(`${c}: ${p.name} not Ready`);
        if (!p.image.endsWith(`:${want.tag}`)) change.unexpected.push(`${c}: ${p.name} runs ${p.image}`);
        if (want.version && p.version !== want.version)
          change.unexpected.push(`${c}: ${p.name} is version ${p.version}, not ${want.version}`);
      }
      const ran = now.every((p) => p.inits.some((i) => i.name === 'migrate' && i.exitCode === 0));
      if (MIGRATING.has(c) && !ran) change.unexpected.push(`${c}: new pods without a completed migrate init`);
      if (MIGRATING.has(c) && ran) change.migrated.push(c);
      if (!MIGRATING.has(c) && now.some((p) => p.inits.length))
        change.unexpected.push(`${c}: has init containers`);
      change.replaced.push(c);
      parts.push(`${c} ${was.length}→${now.length} replaced`);
    } else {
      if (kept.length !== was.length || now.length !== was.length)
        change.unexpected.push(
          `${c}: pods changed (${was.map((p) => p.name).join(',')} → ${now.map((p) => p.name).join(',')})`,
        );
      if (restarts) change.unexpected.push(`${c}: ${restarts} container restart(s)`);
    }
    if (restarts) parts.push(`${c} ${restarts} restart(s)`);
  }
  const others = ORDER.filter((c) => !rolled.includes(c));
  const othersChanged = change.unexpected.filter((u) => others.some((c) => u.startsWith(`${c}:`))).length;
  change.summary =
    `${parts.join(', ')}; other services' pods changed: ${othersChanged}; ` +
    `migrations ran: ${change.migrated.join(', ') || 'none'}`;
  return change;
}

/**
 * Until a component's terminating pods are gone: during its preStop pause and drain, an old pod still serves the
 * requests of connections opened before (clients keep them alive), so what it calls is not yet what the new calls.
 */
export async function oldPodsGone(component: string, timeoutMs = 120_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while ((await pods(component)).some((p) => p.deleting)) {
    if (Date.now() > until)
      throw new Error(`${component}'s old pods still terminating after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 1_000));
  }
}

/** Calls boards served per service name since its pods started (boards' gRPC server metrics), over all its pods. */
export async function boardsCallsByName(): Promise<{ legacy: number; split: number }> {
  let legacy = 0;
  let all = 0;
  for (const p of (await pods('boards')).filter((q) => q.ready && !q.deleting)) {
    const text = await podMetrics(p.name);
    legacy += counterSum(text, 'flowboard_grpc_server_handled_total', {
      grpc_service: 'flowboard.boards.v1.BoardsService',
    });
    all += counterSum(text, 'flowboard_grpc_server_handled_total', {});
  }
  return { legacy, split: all - legacy };
}

/** Boards' calls by name while the load runs `ms`: what the gateway running now calls. */
export async function boardsCallsDuring(ms: number): Promise<{ legacy: number; split: number }> {
  const a = await boardsCallsByName();
  await new Promise((r) => setTimeout(r, ms));
  const b = await boardsCallsByName();
  return { legacy: b.legacy - a.legacy, split: b.split - a.split };
}

export interface Verdict {
  report: LoadReport;
  expected: number;
  received: number;
  notOnce: Array<[string, number]>;
  lost: string[];
  lines: string[];
}

/** Stops the load, then checks its e-mails (each exactly once) and its writes (each read back as acknowledged). */
export async function finish(load: Load, label: string): Promise<Verdict> {
  const report = await load.stop();
  const counts = await mailCounts(report.invitees);
  const received = [...counts.values()].reduce((a, b) => a + b, 0);
  const lost = await lostWrites(report);
  const lines = [
    `${label}: requests sent: ${report.sent} in ${report.seconds.toFixed(0)} s; failed: ${report.failed}`,
    `${label}: e-mails expected: ${report.invitees.length}; received: ${received}`,
    `${label}: writes checked: ${report.stories.size}; lost: ${lost.length}`,
  ];
  return {
    report,
    expected: report.invitees.length,
    received,
    notOnce: [...counts].filter(([, n]) => n !== 1),
    lost,
    lines,
  };
}
