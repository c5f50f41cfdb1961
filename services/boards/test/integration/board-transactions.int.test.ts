import { createPool, isPgError, type Pool } from '@flowboard/pg-kit';
import { createBoardsStore } from '../../src/db/boards-store';
import { BOARDS_DATABASE_URL, admin, createBoard, newProjectId, useBoardsService } from './harness';

useBoardsService();

/**
 * A board write's transaction takes the board's row lock in BEGIN's round trip (board-transactions.ts): the lock is
 * held from the first statement, and the write's own `lock` sends nothing more.
 */
describe("a board write's transaction", () => {
  let pool: Pool;
  /** The text of every statement the store's connections sent, in order. */
  const sent: string[] = [];

  beforeAll(() => {
    pool = createPool({
      connectionString: BOARDS_DATABASE_URL,
      schema: 'boards',
      applicationName: 'tx-test',
    });
    pool.on('connect', (client) => {
      const query = client.query.bind(client) as (...args: unknown[]) => unknown;
      (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
        const first = args[0] as string | { text: string };
        sent.push(typeof first === 'string' ? first : first.text);
        return query(...args);
      };
    });
  });
  afterAll(() => pool.end());
  beforeEach(() => void (sent.length = 0));

  /** Whether another connection finds the board's row locked (asking with NOWAIT). */
  async function lockedElsewhere(projectId: number): Promise<boolean> {
    try {
      await admin.query('SELECT 1 FROM boards WHERE project_id = $1 FOR UPDATE NOWAIT', [projectId]);
      return false;
    } catch (err) {
      if (isPgError(err, '55P03')) return true;
      throw err;
    }
  }

  it("holds the board's lock from BEGIN's round trip, and the write's lock sends no statement", async () => {
    const projectId = newProjectId();
    await createBoard(projectId);
    const store = createBoardsStore(pool, 'boards');
    const seen = await store.boardTransaction(projectId, async (tx) => {
      const heldBefore = await lockedElsewhere(projectId);
      const locked = await tx.boards.lock(projectId);
      return { heldBefore, locked };
    });
    expect(seen).toEqual({ heldBefore: true, locked: true });
    expect(sent).toEqual([
      `BEGIN; SELECT 1 FROM boards WHERE project_id = ${projectId} FOR UPDATE`,
      'COMMIT',
    ]);
    expect(await lockedElsewhere(projectId)).toBe(false);
  });

  it('for a board that does not exist, the write asks itself and learns there is none', async () => {
    const projectId = newProjectId();
    const store = createBoardsStore(pool, 'boards');
    await expect(store.boardTransaction(projectId, (tx) => tx.boards.lock(projectId))).resolves.toBe(false);
    expect(sent).toHaveLength(3); // BEGIN with the lock (no row), the write's own lock, COMMIT
    expect(sent[1]).toContain('FOR UPDATE');
  });
});
