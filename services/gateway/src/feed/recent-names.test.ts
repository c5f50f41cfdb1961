import type { UsersById } from '@flowboard/representation';
import { recentNames } from './recent-names';

function membership() {
  const asked: Array<[number, number[]]> = [];
  let projectName = 'Sudden Valley';
  const lookup = {
    async resolve(projectId: number, userIds: number[]) {
      asked.push([projectId, [...userIds].sort((a, b) => a - b)]);
      const users: UsersById = new Map(
        userIds.map((id) => [
          id,
          { id, name: `user ${id}`, user_name: `u${id}`, email: '', bio: '', create_time: '' },
        ]),
      );
      return { projectName, users };
    },
  };
  return { lookup, asked, rename: (name: string) => (projectName = name) };
}

describe('recentNames', () => {
  let clock = 0;
  const now = () => clock;
  beforeEach(() => (clock = 1_000));

  it('answers again from memory within the time to live, and asks again after it', async () => {
    const { lookup, asked, rename } = membership();
    const names = recentNames(lookup, { ttlMs: 1_000, maxProjects: 10, now });
    await names.resolve(5, [1, 2]);
    rename('Renamed');
    clock += 999;
    expect((await names.resolve(5, [2])).projectName).toBe('Sudden Valley');
    clock += 1;
    expect((await names.resolve(5, [2])).projectName).toBe('Renamed');
    expect(asked).toEqual([
      [5, [1, 2]],
      [5, [2]], // a stale entry is dropped, not merged: only the users wanted
    ]);
  });

  it('asks for a user it does not hold, with those it does, and keeps them all', async () => {
    const { lookup, asked } = membership();
    const names = recentNames(lookup, { ttlMs: 1_000, maxProjects: 10, now });
    await names.resolve(5, [1]);
    const answer = await names.resolve(5, [3]);
    expect([...answer.users.keys()].sort()).toEqual([1, 3]);
    await names.resolve(5, [1, 3]);
    expect(asked).toEqual([
      [5, [1]],
      [5, [1, 3]],
    ]);
  });

  it('keeps projects apart, and forgets the least recently used beyond maxProjects', async () => {
    const { lookup, asked } = membership();
    const names = recentNames(lookup, { ttlMs: 10_000, maxProjects: 2, now });
    await names.resolve(1, []);
    await names.resolve(2, []);
    await names.resolve(1, []); // 1 is now the most recent
    await names.resolve(3, []); // forgets 2
    await names.resolve(1, []);
    await names.resolve(2, []);
    expect(asked.map(([project]) => project)).toEqual([1, 2, 3, 2]);
  });

  it('remembers nothing of a failed lookup', async () => {
    const { lookup, asked } = membership();
    let failing = true;
    const names = recentNames(
      {
        resolve: (projectId, ids) =>
          failing ? Promise.reject(new Error('down')) : lookup.resolve(projectId, ids),
      },
      { ttlMs: 1_000, maxProjects: 10, now },
    );
    await expect(names.resolve(5, [1])).rejects.toThrow('down');
    failing = false;
    await names.resolve(5, [1]);
    expect(asked).toEqual([[5, [1]]]);
  });
});
