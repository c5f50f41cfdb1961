import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { uniqueSuffix, waitFor, WebhookReceiver, type Received } from '@flowboard/testing';
import { Load, lostWrites, type RequestRecord } from './load';
import { api, createBoard, mailIds, pods, signUp, sleep, type PodInfo } from './support';

/**
 * The infrastructure restarted under load: the cluster's PostgreSQL, then Kafka, then Redis, each stopped and started
 * again once on this host (deploy/cluster/infra.sh), while the core load runs and a writer adds stories to a board
 * whose webhook delivers to a receiver on this host. Held:
 *  - no write answered 200 is lost (each story reads back, in the phase of its last acknowledged move);
 *  - no invite e-mail and no webhook delivery is lost (every acknowledged invite's e-mail, every acknowledged story's
 *    story.created event);
 *  - requests fail only while a piece is down, or within RECOVERY_MS of it serving again: counted per piece;
 *  - every service recovers by itself: no container restarted, no pod replaced.
 */
jest.setTimeout(30 * 60_000);

const run = promisify(execFile);
const REPO = path.resolve(__dirname, '../../..');
const BRIDGE = '10.88.0.1'; // this host on the pod network: the cluster's WEBHOOK_ALLOWED_HOSTS
const PIECES = ['postgres', 'kafka', 'redis'] as const;
type Piece = (typeof PIECES)[number];
/** How long each piece stays down. */
const DOWN_MS = 10_000;
/**
 * The recovery this test holds every service to, from the moment a piece serves again: pools reconnect on their next
 * query, Kafka clients retry with a back-off capped at 5 s (messaging's createKafka), consumers rejoin their group.
 */
const RECOVERY_MS = 30_000;

async function infra(action: 'stop' | 'start', piece: Piece): Promise<void> {
  await run('bash', [path.join(REPO, 'deploy/cluster/infra.sh'), action, piece], {
    cwd: REPO,
    maxBuffer: 16 << 20,
  });
}

interface Outage {
  piece: Piece;
  /** When the stop began. */
  stopping: number;
  /** When the start had finished: the piece serves again (infra.sh waits for it). */
  serving: number;
}

/** Stories added to the webhook's board, one every 400 ms, no retries: the ones answered 200 must be delivered. */
class HookedWriter {
  readonly records: RequestRecord[] = [];
  readonly acknowledged: number[] = [];
  private running = true;
  private readonly loop: Promise<void>;

  constructor(key: string, project: number) {
    this.loop = (async () => {
      while (this.running) {
        const at = Date.now();
        const res = await api(`/api/v1/projects/${project}/stories`, {
          method: 'POST',
          key,
          body: { text: `hooked ${at}` },
        }).catch(() => ({ status: 0, json: undefined }));
        this.records.push({ at, op: 'create', status: res.status, ms: Date.now() - at, retryAfter: false });
        if (res.status === 200) this.acknowledged.push(res.json.id as number);
        await sleep(400);
      }
    })();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }
}

const failed = (r: RequestRecord) => r.status !== 200 && r.status !== 204;

describe('the infrastructure restarted under load', () => {
  let openReceiver: WebhookReceiver | undefined; // closed after the test, also when it failed midway
  afterAll(() => openReceiver?.close());

  it('loses nothing acknowledged, fails only while a piece is down, and recovers without a pod restart', async () => {
    const receiver = await WebhookReceiver.start(BRIDGE);
    openReceiver = receiver;
    const owner = await signUp('hooked');
    const board = await createBoard(owner.key);
    const hook = await api(`/api/v1/projects/${board.id}/webhooks`, {
      method: 'POST',
      key: owner.key,
      body: { url: receiver.url('/infra-restart'), description: 'infra-restart phase' },
    });
    expect(hook.status).toBe(200);
    const podsBefore = (await pods()).filter((p) => !p.deleting);
    const load = await Load.prepare({ workers: 4, rate: 20, inviteePrefix: `infra-${uniqueSuffix()}` });
    load.start();
    const writer = new HookedWriter(owner.key, board.id);
    await sleep(8_000);

    const outages: Outage[] = [];
    try {
      for (const piece of PIECES) {
        const stopping = Date.now();
        await infra('stop', piece);
        await sleep(DOWN_MS);
        await infra('start', piece);
        outages.push({ piece, stopping, serving: Date.now() });
        await sleep(RECOVERY_MS + 10_000); // recovered, and steady before the next piece
      }
    } finally {
      await writer.stop(); // also when a stop or start failed: a running writer would keep jest alive
    }
    const report = await load.stop();

    // A failure belongs to the outage whose window [stop, serving again + RECOVERY_MS] its request overlapped.
    const all = [...report.records, ...writer.records];
    const outageOf = (r: RequestRecord) =>
      outages.find((o) => r.at + r.ms >= o.stopping && r.at <= o.serving + RECOVERY_MS);
    const lines: string[] = [];
    for (const o of outages) {
      const inWindow = all.filter((r) => outageOf(r) === o);
      const failures = inWindow.filter(failed);
      const lastFailure = Math.max(o.serving, ...failures.map((r) => r.at + r.ms));
      const statuses = new Map<number, number>();
      for (const r of failures) statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
      lines.push(
        `infra-restart ${o.piece}: down for ${((o.serving - o.stopping) / 1000).toFixed(1)} s (stop, ${DOWN_MS / 1000} s, ` +
          `start until it serves); requests meanwhile and ${RECOVERY_MS / 1000} s after: ${inWindow.length}, failed: ` +
          `${failures.length} (${[...statuses].map(([s, n]) => `${s}: ${n}`).join(', ') || 'none'}); last failure ` +
          `${((lastFailure - o.serving) / 1000).toFixed(1)} s after it served again`,
      );
    }
    const unexplained = all.filter((r) => failed(r) && !outageOf(r));

    const invitees = await mailIds(report.invitees, 180_000);
    const emailsLost = [...invitees].filter(([, got]) => got.length === 0).map(([to]) => to);
    const doubled = [...invitees].filter(([, got]) => got.length > 1);
    const storiesCreated = (requests: Received[]) =>
      new Set(
        requests
          .map((r) => JSON.parse(r.body) as { type: string; data: { id: number } })
          .filter((e) => e.type === 'story.created')
          .map((e) => e.data.id),
      );
    const delivered = await receiver
      .waitFor(
        (requests) => {
          const created = storiesCreated(requests);
          return writer.acknowledged.every((id) => created.has(id)) ? created : undefined;
        },
        'a story.created delivery for every acknowledged story',
        180_000,
      )
      .catch(() => storiesCreated(receiver.received.filter((r) => r.status < 300)));
    const deliveriesLost = writer.acknowledged.filter((id) => !delivered.has(id));
    const lost = await lostWrites(report);

    const podsAfter = (await pods()).filter((p) => !p.deleting);
    const restarted = podsAfter
      .map((p) => ({ p, before: podsBefore.find((q: PodInfo) => q.uid === p.uid) }))
      .filter(({ p, before }) => !before || p.restarts > before.restarts)
      .map(
        ({ p, before }) => `${p.name} (${before ? `${p.restarts - before.restarts} restart(s)` : 'new pod'})`,
      );

    lines.push(
      `infra-restart total: requests sent: ${all.length}; failed: ${all.filter(failed).length}, outside an outage's ` +
        `window: ${unexplained.length}; writes checked: ${report.stories.size}, lost: ${lost.length}; e-mails ` +
        `expected: ${invitees.size}, lost: ${emailsLost.length}, sent twice as the same message: ${doubled.length}; ` +
        `webhook deliveries expected: ${writer.acknowledged.length}, lost: ${deliveriesLost.length}; pods restarted ` +
        `or replaced: ${restarted.length ? restarted.join(', ') : 'none'}`,
    );
    console.log(lines.join('\n'));

    expect(
      unexplained.map((r) => `${r.op} ${r.status} in ${r.ms} ms at ${new Date(r.at).toISOString()}`),
    ).toEqual([]);
    expect(lost).toEqual([]);
    expect(emailsLost).toEqual([]);
    // A copy is the same e-mail (one Message-ID per invite event), as the notifier guarantees when an event comes twice.
    for (const [, got] of doubled) expect(new Set(got).size).toBe(1);
    expect(deliveriesLost).toEqual([]);
    expect(restarted).toEqual([]);
    const ready = await waitFor(
      async () => ((await pods()).every((p) => p.ready || p.deleting) ? true : undefined),
      60_000,
      'every pod Ready',
    );
    expect(ready).toBe(true);
  });
});
