import { uniqueSuffix } from '@flowboard/testing';
import { api, createBoard, signUp, type Board, type SignedUp } from './support';

/**
 * A bounded mix of reads and writes through the gateway's Service, as API clients send them: plain fetch with
 * kept-alive connections and no retries, so a request dropped by a replica going away counts as failed.
 *
 * Per request: 35 % a board page, 20 % one story, 15 % a new story, 20 % a story moved to another phase, 10 % an
 * invite (an e-mail through membership's outbox, Kafka and the notifier). Each worker has its own user and board,
 * so the rate limit per key is never the limit.
 */
export interface LoadOptions {
  workers: number;
  /** Requests per second over all workers. */
  rate: number;
  /** Prefix of the invitees' addresses, so a run's e-mails can be counted. */
  inviteePrefix: string;
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
}

interface Worker {
  user: SignedUp;
  board: Board;
  stories: number[];
}

const OPERATIONS = [
  ['page', 35],
  ['story', 20],
  ['create', 15],
  ['move', 20],
  ['invite', 10],
] as const;
type Operation = (typeof OPERATIONS)[number][0];

function pick(): Operation {
  let n = Math.random() * 100;
  for (const [op, weight] of OPERATIONS) if ((n -= weight) < 0) return op;
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
      workers.push({ user, board, stories });
    }
    return new Load(options, workers);
  }

  start(): void {
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

  private async one(w: Worker): Promise<void> {
    const P = `/api/v1/projects/${w.board.id}`;
    const key = w.user.key;
    const op = pick();
    const story = w.stories[Math.floor(Math.random() * w.stories.length)]!;
    this.report.sent++;
    try {
      switch (op) {
        case 'page':
          this.expect(op, await api(`${P}/stories?pageSize=20`, { key }));
          return;
        case 'story':
          this.expect(op, await api(`${P}/stories/${story}`, { key }));
          return;
        case 'create': {
          const res = await api(`${P}/stories`, {
            method: 'POST',
            key,
            body: { text: `load ${uniqueSuffix()}` },
          });
          if (this.expect(op, res)) {
            w.stories.push(res.json.id);
            this.report.stories.set(res.json.id, { key, project: w.board.id });
          }
          return;
        }
        case 'move': {
          const phase = w.board.phases[Math.floor(Math.random() * (w.board.phases.length - 1))]!;
          const res = await api(`${P}/stories/${story}`, { method: 'PUT', key, body: { phase } });
          if (this.expect(op, res)) this.report.stories.set(story, { key, project: w.board.id, phase });
          return;
        }
        case 'invite': {
          const email = `${this.options.inviteePrefix}-${uniqueSuffix()}@example.test`;
          const res = await api(`${P}/invites`, {
            method: 'POST',
            key,
            body: { email, role: w.board.membersRoleId },
          });
          if (this.expect(op, res)) this.report.invitees.push(email);
          return;
        }
      }
    } catch (err) {
      this.fail(op, (err as Error & { cause?: Error }).cause?.message ?? (err as Error).message);
    }
  }

  private expect(op: Operation, res: { status: number; text: string }): boolean {
    if (res.status === 200) return true;
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
