import { EventEmitter } from 'node:events';
import type pg from 'pg';
import { withTransaction } from './pool';

/** A checked-out client as pg-pool hands it out: no 'error' listener of the pool's while it is out. */
function fakePool() {
  const client = Object.assign(new EventEmitter(), {
    statements: [] as string[],
    released: [] as Array<Error | undefined>,
    query: async (text: string) => {
      client.statements.push(text);
      // A simple query of two statements answers one result each, as pg does.
      if (text.startsWith('BEGIN; ')) return [{ rows: [] }, { rows: [{ n: 1 }], rowCount: 1 }];
      return { rows: [] };
    },
    release: (err?: Error) => client.released.push(err),
  });
  return { client, pool: { connect: async () => client } as unknown as pg.Pool };
}

describe('withTransaction', () => {
  it('commits and puts the connection back', async () => {
    const { client, pool } = fakePool();
    await expect(withTransaction(pool, async () => 7)).resolves.toBe(7);
    expect(client.statements).toEqual(['BEGIN', 'COMMIT']);
    expect(client.released).toEqual([undefined]);
    expect(client.listenerCount('error')).toBe(0);
  });

  it('survives the connection failing between statements, and does not put it back', async () => {
    const { client, pool } = fakePool();
    const lost = new Error('Connection terminated unexpectedly');
    await withTransaction(pool, async () => {
      // With no listener, emit('error') throws: the process would crash on a database blip.
      expect(() => client.emit('error', lost)).not.toThrow();
    });
    expect(client.released).toEqual([lost]);
    expect(client.listenerCount('error')).toBe(0);
  });

  it("sends `withBegin`'s statement with BEGIN, in one round trip, and hands its result to the work", async () => {
    const { client, pool } = fakePool();
    const seen = await withTransaction(pool, async (_client, begun) => begun?.rows, {
      withBegin: 'SELECT 1 AS n',
    });
    expect(seen).toEqual([{ n: 1 }]);
    expect(client.statements).toEqual(['BEGIN; SELECT 1 AS n', 'COMMIT']);
  });

  it('refuses a `withBegin` of more than one statement, rolling back', async () => {
    const { client, pool } = fakePool();
    client.query = async (text: string) => {
      client.statements.push(text);
      return text.startsWith('BEGIN; ') ? [{ rows: [] }, { rows: [] }, { rows: [] }] : { rows: [] };
    };
    await expect(withTransaction(pool, async () => 1, { withBegin: 'SELECT 1; SELECT 2' })).rejects.toThrow(
      /exactly one statement/,
    );
    expect(client.statements).toEqual(['BEGIN; SELECT 1; SELECT 2', 'ROLLBACK']);
  });
});
