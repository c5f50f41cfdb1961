import { AsyncLocalStorage } from 'node:async_hooks';
import { recordChange, runWithContext, type RequestContext } from '@flowboard/service-kit';
import { BoardWriteBatches, RETRIES_ON_CONFLICT, type BoardTransactions } from './board-write-batches';

/**
 * The queue's rules with transactions simulated in memory (a transaction here is a list of what its writes did);
 * the same rules against PostgreSQL: test/integration/board-write-batches.int.test.ts.
 */
interface FakeTx {
  /** Records a statement: `write` for a change, `read` for a SELECT. */
  run(kind: 'read' | 'write', what: string): Promise<void>;
}

function fakeTransactions(options: { failCommit?: boolean } = {}) {
  const committed: string[][] = [];
  const rolledBack: string[][] = [];
  const transactions: BoardTransactions<FakeTx> = {
    async alone(_projectId, work) {
      const log: string[] = [];
      try {
        const value = await work({ run: async (_kind, what) => void log.push(what) });
        committed.push(log);
        return value;
      } catch (err) {
        rolledBack.push(log);
        throw err;
      }
    },
    async together(_projectId, run) {
      const log: string[] = [];
      try {
        await run(() => {
          let wrote = false;
          return {
            tx: {
              run: async (kind, what) => {
                if (kind === 'write') wrote = true;
                log.push(what);
              },
            },
            wrote: () => wrote,
            failed: () => false,
          };
        });
        if (options.failCommit) throw new Error('connection lost during COMMIT');
        committed.push(log);
      } catch (err) {
        rolledBack.push(log);
        throw err;
      }
    },
  };
  return { transactions, committed, rolledBack };
}

/** A write that does `what` after a turn of the event loop (so later writes arrive while it runs). */
const write =
  (what: string, fail?: 'before' | 'after') =>
  async (tx: FakeTx): Promise<string> => {
    await new Promise((r) => setImmediate(r));
    if (fail === 'before') {
      await tx.run('read', `read ${what}`);
      throw new Error(`${what} refused`);
    }
    await tx.run('write', what);
    if (fail === 'after') throw new Error(`${what} failed`);
    return what;
  };

const settle = (calls: Array<Promise<string>>) =>
  Promise.all(
    calls.map((c) =>
      c.then(
        (v) => v,
        (e: Error) => `error: ${e.message}`,
      ),
    ),
  );

/** Writes a, b, c and d to board 1 at once, c failing `cFails` it writes. */
const abcd = (batches: BoardWriteBatches<FakeTx>, cFails: 'before' | 'after') =>
  settle([
    batches.run(1, write('a')),
    batches.run(1, write('b')),
    batches.run(1, write('c', cFails)),
    batches.run(1, write('d')),
  ]);

describe('BoardWriteBatches', () => {
  it('runs the first write alone at once and the writes that arrived meanwhile together, in order', async () => {
    const { transactions, committed } = fakeTransactions();
    const sizes: number[] = [];
    const batches = new BoardWriteBatches(transactions, { maxBatch: 3, onBatch: (n) => sizes.push(n) });

    const answers = await settle(['a', 'b', 'c', 'd', 'e', 'f'].map((w) => batches.run(1, write(w))));

    expect(answers).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
    expect(committed).toEqual([['a'], ['b', 'c', 'd'], ['e', 'f']]);
    expect(sizes).toEqual([1, 3, 2]);
  });

  it('weighs each write by the stories it writes: a bulk write heavier than the bound runs alone', async () => {
    const { transactions, committed } = fakeTransactions();
    const batches = new BoardWriteBatches(transactions, { maxBatch: 32 });

    const answers = await settle([
      batches.run(1, write('a')),
      batches.run(1, write('bulk of 100'), 100),
      batches.run(1, write('b')),
      batches.run(1, write('bulk of 20'), 20),
      batches.run(1, write('c'), 12),
      batches.run(1, write('d')),
    ]);

    expect(answers).toEqual(['a', 'bulk of 100', 'b', 'bulk of 20', 'c', 'd']);
    // a starts at once; the bulk of 100 outweighs the bound alone; then b, 20 and 12 stories (33 > 32) split.
    expect(committed).toEqual([['a'], ['bulk of 100'], ['b', 'bulk of 20'], ['c', 'd']]);
  });

  it('starts no write whose caller has gone by its turn, and runs the others', async () => {
    const { transactions, committed } = fakeTransactions();
    const batches = new BoardWriteBatches(transactions, { maxBatch: 10 });
    let bGone = false;
    const asCaller = (gone: () => boolean, what: string) =>
      runWithContext({ requestId: what, callerGone: gone }, () => batches.run(1, write(what)));

    const calls = [asCaller(() => false, 'a'), asCaller(() => bGone, 'b'), asCaller(() => false, 'c')];
    bGone = true; // b's deadline passes while a holds the board
    const answers = await settle(calls);

    expect(answers).toEqual([
      'a',
      'error: The caller had gone before its write started; nothing was written.',
      'c',
    ]);
    expect(committed).toEqual([['a'], ['c']]);
  });

  it("keeps each board's writes apart from another board's", async () => {
    const { transactions, committed } = fakeTransactions();
    const batches = new BoardWriteBatches(transactions, { maxBatch: 10 });

    await settle([batches.run(1, write('1a')), batches.run(2, write('2a')), batches.run(1, write('1b'))]);

    expect(committed).toEqual([['1a'], ['2a'], ['1b']]);
  });

  it('answers a write that failed before writing with its error, and commits the others together', async () => {
    const { transactions, committed, rolledBack } = fakeTransactions();
    const batches = new BoardWriteBatches(transactions, { maxBatch: 10 });

    const answers = await abcd(batches, 'before');

    expect(answers).toEqual(['a', 'b', 'error: c refused', 'd']);
    expect(committed).toEqual([['a'], ['b', 'read c', 'd']]);
    expect(rolledBack).toEqual([]);
  });

  it('rolls back a shared transaction when a write failed after writing, then runs each of its writes alone', async () => {
    const { transactions, committed, rolledBack } = fakeTransactions();
    const sizes: number[] = [];
    const batches = new BoardWriteBatches(transactions, { maxBatch: 10, onBatch: (n) => sizes.push(n) });

    const answers = await abcd(batches, 'after');

    expect(answers).toEqual(['a', 'b', 'error: c failed', 'd']);
    expect(rolledBack).toEqual([['b', 'c'], ['c']]);
    expect(committed).toEqual([['a'], ['b'], ['d']]);
    expect(sizes).toEqual([1, 3, 1, 1, 1]);
  });

  it('answers every write of a shared transaction whose COMMIT failed with that failure, running none again', async () => {
    const { transactions, committed } = fakeTransactions({ failCommit: true });
    const batches = new BoardWriteBatches(transactions, { maxBatch: 10 });

    // The first runs alone (its own COMMIT, which this fake lets through); the next two share one.
    const answers = await settle([
      batches.run(1, write('a')),
      batches.run(1, write('b')),
      batches.run(1, write('c')),
    ]);

    expect(answers).toEqual([
      'a',
      'error: connection lost during COMMIT',
      'error: connection lost during COMMIT',
    ]);
    expect(committed).toEqual([['a']]);
  });

  it('runs a write again when its transaction was ended to break a deadlock, a bounded number of times', async () => {
    const { transactions, committed, rolledBack } = fakeTransactions();
    const deadlock = () => Object.assign(new Error('deadlock detected'), { code: '40P01' });
    const batches = new BoardWriteBatches(transactions, {
      maxBatch: 10,
      retryable: (e) => (e as { code?: string }).code === '40P01',
    });
    /** Writes `what`, its first `victims` runs ended by a deadlock after writing. */
    const unlucky = (what: string, victims: number) => {
      let runs = 0;
      return async (tx: FakeTx) => {
        await tx.run('write', `${what}#${++runs}`);
        if (runs <= victims) throw deadlock();
        return what;
      };
    };

    expect(await settle([batches.run(1, unlucky('a', RETRIES_ON_CONFLICT))])).toEqual(['a']);
    expect(await settle([batches.run(1, unlucky('b', RETRIES_ON_CONFLICT + 1))])).toEqual([
      'error: deadlock detected',
    ]);
    expect(await settle([batches.run(1, async () => Promise.reject(new Error('a bug')))])).toEqual([
      'error: a bug',
    ]);

    expect(committed).toEqual([[`a#${RETRIES_ON_CONFLICT + 1}`]]);
    expect(rolledBack).toEqual([
      ...Array.from({ length: RETRIES_ON_CONFLICT }, (_, i) => [`a#${i + 1}`]),
      ...Array.from({ length: RETRIES_ON_CONFLICT + 1 }, (_, i) => [`b#${i + 1}`]),
      [], // the bug: once, not again
    ]);
  });

  it("runs each write in its own caller's async context, not that of the write that started the queue", async () => {
    const { transactions } = fakeTransactions();
    const batches = new BoardWriteBatches(transactions, { maxBatch: 10 });
    const request = new AsyncLocalStorage<string>();
    const seenBy = (name: string) =>
      request.run(name, () =>
        batches.run(1, async (tx) => {
          await write(name)(tx);
          return `${name} ran in ${request.getStore()}`;
        }),
      );

    const answers = await Promise.all(['a', 'b', 'c'].map(seenBy));

    expect(answers).toEqual(['a ran in a', 'b ran in b', 'c ran in c']);
  });

  it('names in a write’s answer only the changes of its run that committed, not those of a batch rolled back', async () => {
    const { transactions } = fakeTransactions();
    const batches = new BoardWriteBatches(transactions, { maxBatch: 10 });
    const contexts = new Map<string, RequestContext>();
    let runs = 0;
    const writeRecording = (what: string, fail?: 'after') => {
      const context: RequestContext = { requestId: what, changes: ['before'] };
      contexts.set(what, context);
      return runWithContext(context, () =>
        batches.run(1, async (tx) => {
          recordChange(`${what}#${++runs}`);
          return write(what, fail)(tx);
        }),
      );
    };

    // a alone (run 1); b and c together (2, 3), rolled back by c before d ran; then b, c and d each alone (4-6).
    await settle([
      writeRecording('a'),
      writeRecording('b'),
      writeRecording('c', 'after'),
      writeRecording('d'),
    ]);

    expect(contexts.get('a')!.changes).toEqual(['before', 'a#1']);
    expect(contexts.get('b')!.changes).toEqual(['before', 'b#4']);
    expect(contexts.get('d')!.changes).toEqual(['before', 'd#6']);
  });
});
