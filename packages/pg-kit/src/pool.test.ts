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
});
