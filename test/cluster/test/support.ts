import { execFile, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { apiClient, requireEnv, uniqueSuffix, waitFor, type MailSummary } from '@flowboard/testing';

/**
 * Where the API is: the gateway (the cluster's NodePort on loopback, or compose's published port) and the mail
 * catcher. The smoke test needs nothing else, so it also runs against `docker compose` (scripts/compose-test.sh).
 */
const http = requireEnv('GATEWAY_URL', 'MAILPIT_URL');
export const api = apiClient(http.GATEWAY_URL);
export const env = http;

/**
 * What scripts/cluster-test.sh hands the tests that drive the cluster: kubectl and helm with the cluster's
 * kubeconfig, the release, the chart arguments of the install (one per line), the node's containerd.
 */
const kube = () =>
  requireEnv(
    'FLOWBOARD_KUBECTL',
    'FLOWBOARD_HELM',
    'FLOWBOARD_HELM_ARGS',
    'FLOWBOARD_CLUSTER_NAMESPACE',
    'FLOWBOARD_CLUSTER_RELEASE',
    'FLOWBOARD_CLUSTER_CHART',
    'FLOWBOARD_CONTAINERD_SOCK',
  );
const NS = () => kube().FLOWBOARD_CLUSTER_NAMESPACE;
const RELEASE = () => kube().FLOWBOARD_CLUSTER_RELEASE;

const run = promisify(execFile);

/** kubectl in the release's namespace; resolves to stdout, rejects with stderr. */
export async function kubectl(...args: string[]): Promise<string> {
  const { stdout } = await run(kube().FLOWBOARD_KUBECTL, ['-n', NS(), ...args], {
    maxBuffer: 64 * 1024 * 1024,
  });
  return stdout;
}

/** helm with the cluster's kubeconfig (from the environment); resolves to stdout and stderr. */
export async function helm(...args: string[]): Promise<string> {
  const { stdout, stderr } = await run(kube().FLOWBOARD_HELM, args, { maxBuffer: 16 * 1024 * 1024 });
  return stdout + stderr;
}

/**
 * `helm upgrade` of the release with the install's arguments (this machine's values, no images), this tree's images
 * (FLOWBOARD_CLUSTER_IMAGES, when set), then `extra` (later --set wins: a test's own images, replicas...).
 */
export async function helmUpgrade(extra: string[]): Promise<string> {
  const installArgs = readFileSync(kube().FLOWBOARD_HELM_ARGS, 'utf8').split('\n').filter(Boolean);
  const head = process.env.FLOWBOARD_CLUSTER_IMAGES;
  return helm(
    'upgrade',
    RELEASE(),
    kube().FLOWBOARD_CLUSTER_CHART,
    '--wait',
    '--timeout',
    '8m',
    ...installArgs,
    ...(head ? imageTagArgs(head) : []),
    ...extra,
  );
}

/** `helm rollback` of the release to `revision`, waiting for its pods. */
export async function helmRollback(revision: number): Promise<string> {
  return helm('rollback', RELEASE(), String(revision), '-n', NS(), '--wait', '--timeout', '8m');
}

/** The release's revisions, oldest first. */
export async function helmHistory(): Promise<
  Array<{ revision: number; status: string; description: string }>
> {
  return JSON.parse(await helm('history', RELEASE(), '-n', NS(), '-o', 'json', '--max', '100'));
}

/** The values a revision was installed with (`helm get values`), as given. */
export async function helmValues(revision: number): Promise<{
  components?: Record<string, { version?: string; image?: { tag?: string } }>;
}> {
  return JSON.parse(
    await helm('get', 'values', RELEASE(), '-n', NS(), '--revision', String(revision), '-o', 'json'),
  );
}

export interface ImageRef {
  tag: string;
  version: string;
  /** What the image's service can say to Kafka: `tls-sasl`, or `plaintext` (a release from before KAFKA_TLS). */
  kafka: string;
}

/** An images file of images.sh ("<service> <tag> <version> <kafka>" lines): service → its ImageRef. */
export function readImages(imagesFile: string): Map<string, ImageRef> {
  return new Map(
    readFileSync(imagesFile, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        const [svc, tag, version, kafka] = line.split(' ');
        return [svc!, { tag: tag!, version: version ?? '', kafka: kafka ?? '' }];
      }),
  );
}

/**
 * `--set-string` arguments giving each service of `images` its image tag and release version, and a service built
 * before Kafka TLS and SASL Kafka's plaintext listener (deploy/cluster/lib.sh, image_args: the same rule).
 */
export function imageArgs(images: Map<string, ImageRef>): string[] {
  const plaintextBrokers = process.env.FLOWBOARD_KAFKA_PLAINTEXT_BROKERS;
  return [...images].flatMap(([svc, { tag, version, kafka }]) => [
    '--set-string',
    `components.${svc}.image.tag=${tag}`,
    ...(version ? ['--set-string', `components.${svc}.version=${version}`] : []),
    ...(kafka === 'plaintext' && svc !== 'gateway' && plaintextBrokers
      ? ['--set-string', `components.${svc}.env.KAFKA_BROKERS=${plaintextBrokers}`]
      : []),
  ]);
}

/** The `--set-string` arguments of an images file: each service's image tag and release version. */
export function imageTagArgs(imagesFile: string): string[] {
  return imageArgs(readImages(imagesFile));
}

export interface PodInfo {
  name: string;
  uid: string;
  component: string;
  ready: boolean;
  image: string;
  /** app.kubernetes.io/version: the component's release. */
  version: string;
  deleting: boolean;
  /** containerd's id of the service's container (for a crash test: SIGKILL from the host). */
  containerId: string;
  restarts: number;
  /** Init containers (`migrate`): name, exit code once terminated, restarts. */
  inits: Array<{ name: string; exitCode?: number; restarts: number }>;
}

/** The pods of the release's Deployments (not its hook Jobs' or tests'), optionally of one component. */
export async function pods(component?: string): Promise<PodInfo[]> {
  const selector = [`app.kubernetes.io/instance=${RELEASE()}`];
  if (component) selector.push(`app.kubernetes.io/component=${component}`);
  const list = JSON.parse(await kubectl('get', 'pods', '-l', selector.join(','), '-o', 'json')) as {
    items: Array<{
      metadata: {
        name: string;
        uid: string;
        labels: Record<string, string>;
        deletionTimestamp?: string;
        ownerReferences?: Array<{ kind: string }>;
      };
      spec: { containers: Array<{ image: string }> };
      status: {
        conditions?: Array<{ type: string; status: string }>;
        containerStatuses?: Array<{ containerID?: string; restartCount: number }>;
        initContainerStatuses?: Array<{
          name: string;
          restartCount: number;
          state?: { terminated?: { exitCode: number } };
        }>;
      };
    }>;
  };
  return list.items
    .filter((p) => p.metadata.ownerReferences?.[0]?.kind === 'ReplicaSet')
    .map((p) => ({
      name: p.metadata.name,
      uid: p.metadata.uid,
      component: p.metadata.labels['app.kubernetes.io/component'] ?? '',
      ready: (p.status.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True'),
      image: p.spec.containers[0]?.image ?? '',
      version: p.metadata.labels['app.kubernetes.io/version'] ?? '',
      deleting: Boolean(p.metadata.deletionTimestamp),
      containerId: p.status.containerStatuses?.[0]?.containerID?.replace(/^containerd:\/\//, '') ?? '',
      restarts: p.status.containerStatuses?.[0]?.restartCount ?? 0,
      inits: (p.status.initContainerStatuses ?? []).map((i) => ({
        name: i.name,
        exitCode: i.state?.terminated?.exitCode,
        restarts: i.restartCount,
      })),
    }));
}

/** The pods of `component` as a failure's message shows them: name, Ready or not, restarts. */
export async function podStates(component?: string): Promise<string> {
  return (await pods(component))
    .map(
      (p) =>
        `${p.name} ${p.ready ? 'Ready' : 'not Ready'}, ${p.restarts} restart(s)${p.deleting ? ', deleting' : ''}`,
    )
    .join('; ');
}

/** GET /metrics of one pod, on its metrics port (9464), through a port-forward. */
export async function podMetrics(pod: string, port = 9464): Promise<string> {
  const forward = await portForward(pod, port);
  try {
    const res = await fetch(`${forward.url}/metrics`);
    if (!res.ok) throw new Error(`metrics of ${pod}: ${res.status}`);
    return await res.text();
  } finally {
    forward.stop();
  }
}

/** The sum of a counter's samples whose labels include every `match` pair. */
export function counterSum(metrics: string, name: string, match: Record<string, string>): number {
  let sum = 0;
  for (const line of metrics.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const labels = /\{([^}]*)\}/.exec(line)?.[1] ?? '';
    if (Object.entries(match).every(([k, v]) => labels.includes(`${k}="${v}"`)))
      sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

export interface SignedUp {
  id: number;
  userName: string;
  email: string;
  key: string;
}

export async function signUp(prefix: string, call = api): Promise<SignedUp> {
  const userName = `${prefix}-${uniqueSuffix()}`;
  const email = `${userName}@example.test`;
  const res = await call('/api/v1/users', { method: 'POST', body: { userName, email, name: prefix } });
  if (res.status !== 200) throw new Error(`sign-up failed: ${res.status} ${res.text}`);
  return { id: res.json.id, userName, email, key: res.json.apiKey };
}

export interface Board {
  id: number;
  phases: number[];
  membersRoleId: number;
}

/** A project with its phases (board columns) and the id of its Members role, for invites. */
export async function createBoard(key: string, call = api): Promise<Board> {
  const created = await call('/api/v1/projects', {
    method: 'POST',
    key,
    body: { name: `Board ${uniqueSuffix()}` },
  });
  if (created.status !== 200) throw new Error(`project create failed: ${created.status} ${created.text}`);
  const id = created.json.id as number;
  const withPhases = await call(`/api/v1/projects/${id}?with=phases`, { key });
  const roles = await call(`/api/v1/projects/${id}/roles?where=name:Members`, { key });
  return {
    id,
    phases: (withPhases.json.phases as Array<{ id: number }>).map((p) => p.id),
    membersRoleId: roles.json.items[0].id,
  };
}

/** Every message the mail catcher holds (it keeps the last 1,000). */
export async function allMail(): Promise<MailSummary[]> {
  const res = await fetch(`${env.MAILPIT_URL}/api/v1/messages?limit=1000`);
  if (!res.ok) throw new Error(`mail list failed: ${res.status}`);
  return ((await res.json()) as { messages: MailSummary[] }).messages;
}

/**
 * Waits until each address has received one message (or `timeoutMs` passes), then a little longer, so a late
 * duplicate shows too; returns the Message-IDs each address received.
 */
export async function mailIds(addresses: string[], timeoutMs = 120_000): Promise<Map<string, string[]>> {
  const collect = async () => {
    const ids = new Map(addresses.map((a) => [a.toLowerCase(), [] as string[]]));
    for (const m of await allMail())
      for (const to of m.To) ids.get(to.Address.toLowerCase())?.push(m.MessageID);
    return ids;
  };
  await waitFor(
    async () => ([...(await collect()).values()].every((got) => got.length > 0) ? true : undefined),
    timeoutMs,
    `e-mail to all ${addresses.length} invitees`,
  ).catch(() => undefined); // the caller's assertion shows which are missing
  await new Promise((r) => setTimeout(r, 3_000));
  return collect();
}

/** `mailIds`, counted: how many e-mails each address received. */
export async function mailCounts(addresses: string[], timeoutMs = 120_000): Promise<Map<string, number>> {
  return new Map([...(await mailIds(addresses, timeoutMs))].map(([a, ids]) => [a, ids.length]));
}

/**
 * `kubectl port-forward` to one pod's port, on a free loopback port: the way to talk to one chosen replica. Resolves
 * to its URL and a stop function.
 */
export async function portForward(pod: string, port: number): Promise<{ url: string; stop(): void }> {
  const child = spawn(kube().FLOWBOARD_KUBECTL, ['-n', NS(), 'port-forward', `pod/${pod}`, `:${port}`], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const local = await new Promise<number>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(
      () => reject(new Error(`port-forward to ${pod}: no port after 20 s: ${out}`)),
      20_000,
    );
    const read = (chunk: Buffer) => {
      out += chunk.toString();
      const m = /Forwarding from 127\.0\.0\.1:(\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.once('exit', (code) => reject(new Error(`port-forward to ${pod} exited (${code}): ${out}`)));
  });
  return { url: `http://127.0.0.1:${local}`, stop: () => child.kill() };
}

/** Kills a pod's container as a crash would (SIGKILL from the host, through the node's containerd). */
export async function crash(pod: PodInfo): Promise<void> {
  await run('ctr', [
    '--address',
    kube().FLOWBOARD_CONTAINERD_SOCK,
    '-n',
    'k8s.io',
    'tasks',
    'kill',
    '-s',
    'SIGKILL',
    pod.containerId,
  ]);
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
