import { uniqueSuffix } from '@flowboard/testing';
import { api, createBoard, signUp, type Board, type SignedUp } from './support';

/**
 * A bounded mix of reads and writes through the gateway's Service, as API clients send them: plain fetch with
 * kept-alive connections and no retries, so a request dropped by a replica going away counts as failed.
 *
 * The core mix, per request: 35 % a board page, 20 % one story, 15 % a new story, 20 % a story moved to another
 * phase, 10 % an invite (an e-mail through membership's outbox, Kafka and the notifier). The isolation mix adds the
 * routes of webhooks (list; create, or delete once a worker has 4) and of files (an attachment uploaded; listed),
 * and story creates with an Idempotency-Key (which need Redis). Each worker has its own user and board, so the rate
 * limit per key is never the limit.
 */
/**
 * Loads started and not stopped. A test that fails midway never reaches its `stop()`, and a running load would keep
 * jest, and so its cluster phase, alive until CI's time ran out: each test file stops what is left after its tests.
 */
const started = new Set<Load>();
afterAll(() => Promise.all([...started].map((load) => load.stop())));

export interface LoadOptions {
  workers: number;
  /** Requests per second over all workers. */
  rate: number;
  /** Prefix of the invitees' addresses, so a run's e-mails can be counted. */
  inviteePrefix: string;
  /** 'core' (default) or 'isolation' (the core mix plus webhooks, attachments and idempotent creates). */
  mix?: 'core' | 'isolation';
  /** Where the isolation mix's webhooks point: created inactive, so nothing is ever delivered there. */
  webhookUrl?: string;
}

/** One request as the client saw it: when it was sent (ms since the epoch), its answer, how long it took. */
export interface RequestRecord {
  at: number;
  op: Operation;
  /** HTTP status; 0 when no answer came (connection refused or reset). */
  status: number;
  ms: number;
  /** The answer carried a Retry-After header. */
  retryAfter: boolean;
}

export interface LoadReport {
  sent: number;
  failed: number;
  /** The first failures, for the test's message. */
  failures: string[];
  /** Invites the API acknowledged: each must yield exactly one e-mail. */
  invitees: string[];
  /** Stories the API acknowledged, with the phase of the last acknowledged move: each must read back so. */
  stories: Map<number, { key: string; project: number; phase?: number }>;
  seconds: number;
  /** Every request, in order of answer. */
  records: RequestRecord[];
}

interface Worker {
  user: SignedUp;
  board: Board;
  stories: number[];
  /** The isolation mix's webhooks of this worker's board. */
  webhooks: number[];
}

export type Operation =
  | 'page'
  | 'story'
  | 'create'
  | 'move'
  | 'invite'
  | 'webhooks-list'
  | 'webhook-write'
  | 'attachment-upload'
  | 'attachment-list'
  | 'create-idempotent';

const MIXES: Record<'core' | 'isolation', Array<[Operation, number]>> = {
  core: [
    ['page', 35],
    ['story', 20],
    ['create', 15],
    ['move', 20],
    ['invite', 10],
  ],
  isolation: [
    ['page', 22],
    ['story', 14],
    ['create', 10],
    ['move', 14],
    ['invite', 5],
    ['webhooks-list', 10],
    ['webhook-write', 5],
    ['attachment-upload', 5],
    ['attachment-list', 10],
    ['create-idempotent', 5],
  ],
};

function pick(mix: Array<[Operation, number]>): Operation {
  let n = Math.random() * 100;
  for (const [op, weight] of mix) if ((n -= weight) < 0) return op;
  return 'page';
}

export class Load {
  private readonly report: LoadReport = {
    sent: 0,
    failed: 0,
    failures: [],
    invitees: [],
    stories: new Map(),
    seconds: 0,
    records: [],
  };
  private running = false;
  private loops: Array<Promise<void>> = [];
  private started = 0;

  private constructor(
    private readonly options: LoadOptions,
    private readonly workers: Worker[],
  ) {}

  /** Users, boards and a few stories per worker, made before the load starts (not counted). */
  static async prepare(options: LoadOptions): Promise<Load> {
    const workers: Worker[] = [];
    for (let i = 0; i < options.workers; i++) {
      const user = await signUp(`load${i}`);
      const board = await createBoard(user.key);
      const stories: number[] = [];
      for (let s = 0; s < 3; s++) {
        const res = await api(`/api/v1/projects/${board.id}/stories`, {
          method: 'POST',
          key: user.key,
          body: { text: `seed ${s}` },
        });
        if (res.status !== 200) throw new Error(`seed story failed: ${res.status} ${res.text}`);
        stories.push(res.json.id);
      }
      workers.push({ user, board, stories, webhooks: [] });
    }
    return new Load(options, workers);
  }

  start(): void {
    started.add(this);
    this.running = true;
    this.started = Date.now();
    const interval = (1000 * this.options.workers) / this.options.rate; // per worker
    this.loops = this.workers.map(async (w, i) => {
      await new Promise((r) => setTimeout(r, (interval * i) / this.options.workers));
      while (this.running) {
        const t0 = Date.now();
        await this.one(w);
        const wait = interval - (Date.now() - t0);
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      }
    });
  }

  async stop(): Promise<LoadReport> {
    started.delete(this);
    this.running = false;
    await Promise.all(this.loops);
    this.report.seconds = (Date.now() - this.started) / 1000;
    return this.report;
  }

  /**
   * One more invite per worker's board, after the load stopped; their addresses. Each follows the load's invites of
   * its board in the same Kafka partition (keyed by project), so once a marker's e-mail is there, every redelivery of
   * an earlier invite on that board has been handled, however long its pending claim took to expire.
   */
  async markerInvites(): Promise<string[]> {
    return Promise.all(
      this.workers.map(async (w) => {
        const email = `${this.options.inviteePrefix}-marker-${uniqueSuffix()}@example.test`;
        const res = await api(`/api/v1/projects/${w.board.id}/invites`, {
          method: 'POST',
          key: w.user.key,
          body: { email, role: w.board.membersRoleId },
        });
        if (res.status !== 200) throw new Error(`marker invite failed: ${res.status} ${res.text}`);
        return email;
      }),
    );
  }

  /** Sent so far (the test waits for some load before and after a change). */
  get sent(): number {
    return this.report.sent;
  }

  /** The requests answered so far (the test reads windows of them while the load runs). */
  get records(): readonly RequestRecord[] {
    return this.report.records;
  }

  private async one(w: Worker): Promise<void> {
    const op = pick(MIXES[this.options.mix ?? 'core']);
    this.report.sent++;
    const at = Date.now();
    let status = 0;
    let retryAfter = false;
    const call = async (path: string, request: Parameters<typeof api>[1] = {}) => {
      const res = await api(path, { key: w.user.key, ...request });
      status = res.status;
      retryAfter = res.headers.has('retry-after');
      return res;
    };
    try {
      await this.run(op, w, call);
    } catch (err) {
      this.fail(op, (err as Error & { cause?: Error }).cause?.message ?? (err as Error).message);
    } finally {
      this.report.records.push({ at, op, status, ms: Date.now() - at, retryAfter });
    }
  }

  private async run(
    op: Operation,
    w: Worker,
    call: (path: string, request?: Parameters<typeof api>[1]) => ReturnType<typeof api>,
  ): Promise<void> {
    const P = `/api/v1/projects/${w.board.id}`;
    const story = w.stories[Math.floor(Math.random() * w.stories.length)]!;
    switch (op) {
      case 'page':
        this.expect(op, await call(`${P}/stories?pageSize=20`));
        return;
      case 'story':
        this.expect(op, await call(`${P}/stories/${story}`));
        return;
      case 'create':
      case 'create-idempotent': {
        const res = await call(`${P}/stories`, {
          method: 'POST',
          body: { text: `load ${uniqueSuffix()}` },
          headers: op === 'create-idempotent' ? { 'Idempotency-Key': `load-${uniqueSuffix()}` } : {},
        });
        if (this.expect(op, res)) {
          w.stories.push(res.json.id);
          this.report.stories.set(res.json.id, { key: w.user.key, project: w.board.id });
        }
        return;
      }
      case 'move': {
        const phase = w.board.phases[Math.floor(Math.random() * (w.board.phases.length - 1))]!;
        const res = await call(`${P}/stories/${story}`, { method: 'PUT', body: { phase } });
        if (this.expect(op, res))
          this.report.stories.set(story, { key: w.user.key, project: w.board.id, phase });
        return;
      }
      case 'invite': {
        const email = `${this.options.inviteePrefix}-${uniqueSuffix()}@example.test`;
        const res = await call(`${P}/invites`, {
          method: 'POST',
          body: { email, role: w.board.membersRoleId },
        });
        if (this.expect(op, res)) this.report.invitees.push(email);
        return;
      }
      case 'webhooks-list':
        this.expect(op, await call(`${P}/webhooks`));
        return;
      case 'webhook-write': {
        // At most 4 a board (a project may have 20): create, or delete the oldest.
        if (w.webhooks.length >= 4) {
          const id = w.webhooks[0]!;
          if (this.expect(op, await call(`${P}/webhooks/${id}`, { method: 'DELETE' }), [200, 204]))
            w.webhooks.shift();
          return;
        }
        const res = await call(`${P}/webhooks`, {
          method: 'POST',
          body: {
            url: this.options.webhookUrl ?? 'http://10.88.0.1:9/flowboard-load',
            eventTypes: ['story.created'],
            active: false,
            description: 'load',
          },
        });
        if (this.expect(op, res)) w.webhooks.push(res.json.id);
        return;
      }
      case 'attachment-upload': {
        const form = new FormData();
        const bytes = new TextEncoder().encode(`load ${uniqueSuffix()}\n`.repeat(64));
        form.append('attachment', new Blob([bytes], { type: 'text/plain' }), 'load.txt');
        this.expect(
          op,
          await call(`${P}/stories/${w.stories[0]}/attachments`, { method: 'POST', body: form }),
        );
        return;
      }
      case 'attachment-list':
        this.expect(op, await call(`${P}/stories/${w.stories[0]}/attachments`));
        return;
    }
  }

  private expect(op: Operation, res: { status: number; text: string }, ok = [200]): boolean {
    if (ok.includes(res.status)) return true;
    this.fail(op, `${res.status} ${res.text.slice(0, 200)}`);
    return false;
  }

  private fail(op: Operation, why: string): void {
    this.report.failed++;
    if (this.report.failures.length < 20)
      this.report.failures.push(`${new Date().toISOString()} ${op}: ${why}`);
  }
}

/** Every acknowledged story reads back, in the phase of its last acknowledged move. */
export async function lostWrites(report: LoadReport): Promise<string[]> {
  const lost: string[] = [];
  for (const [id, s] of report.stories) {
    const res = await api(`/api/v1/projects/${s.project}/stories/${id}`, { key: s.key });
    if (res.status !== 200) lost.push(`story ${id}: ${res.status}`);
    else if (s.phase !== undefined && res.json.phase.id !== s.phase)
      lost.push(`story ${id}: phase ${res.json.phase.id}, moved to ${s.phase}`);
  }
  return lost;
}
