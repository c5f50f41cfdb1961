import { DomainError } from '@flowboard/service-kit';
import type { membership } from '@flowboard/proto';
import type { ProjectAccess } from '../../authz/access';
import { checkAccess, sharedRefresh, StreamSlots, type AccessCheckDeps } from './stream-access';

describe('StreamSlots: open streams per key', () => {
  it('gives at most the cap per key, each key its own, back once per release', () => {
    const slots = new StreamSlots(2);
    const a1 = slots.take('a')!;
    const a2 = slots.take('a')!;
    expect(slots.take('a')).toBeUndefined();
    const b1 = slots.take('b');
    expect(b1).toBeDefined();
    a1();
    a1(); // twice: still one slot back
    expect(slots.count('a')).toBe(1);
    expect(slots.take('a')).toBeDefined();
    expect(slots.take('a')).toBeUndefined();
    a2();
    b1!();
    expect(slots.count('b')).toBe(0);
    expect(slots.keys).toBe(1);
    expect(() => new StreamSlots(0)).toThrow(RangeError);
  });
});

describe('checkAccess', () => {
  const user = { id: 7 } as membership.User__Output;
  const caller = { rawKey: 'k', keyHash: 'h', projectId: 1, needed: 'Read' as const };
  const deps = (
    access: () => Promise<ProjectAccess>,
    authenticate = async () => ({ user }),
  ): AccessCheckDeps => ({
    apiKeys: { authenticate },
    access: { resolve: access },
    refreshEpoch: async () => undefined,
  });
  const level = (access: ProjectAccess['access']) => async () =>
    ({ projectId: 1, projectName: 'P', access, isOwner: false }) as ProjectAccess;
  const throws = (error: unknown) => async () => {
    throw error;
  };

  it('grants Read and above', async () => {
    for (const access of ['read', 'readwrite', 'admin'] as const)
      expect(await checkAccess(deps(level(access)), caller)).toEqual({ kind: 'granted' });
  });

  it('lost: a key no longer valid (401), not a member (404), too little access (403)', async () => {
    const unauthenticated = new DomainError('Unauthenticated', 'The API key is not valid.');
    expect(await checkAccess(deps(level('read'), throws(unauthenticated)), caller)).toEqual({
      kind: 'lost',
      error: unauthenticated,
    });
    const notFound = new DomainError('NotFound', 'No such project.');
    expect(await checkAccess(deps(throws(notFound)), caller)).toEqual({ kind: 'lost', error: notFound });
    const none = await checkAccess(deps(level('none')), caller);
    expect(none).toMatchObject({ kind: 'lost', error: { kind: 'PermissionDenied' } });
  });

  it('failed: anything else (a dependency down, a bug) decides nothing', async () => {
    const down = new DomainError('Unavailable', 'down');
    expect(await checkAccess(deps(throws(down)), caller)).toEqual({ kind: 'failed', error: down });
    const bug = new TypeError('x');
    expect(await checkAccess(deps(throws(bug)), caller)).toEqual({ kind: 'failed', error: bug });
  });

  it('reads the cache epoch before deciding', async () => {
    const order: string[] = [];
    await checkAccess(
      {
        apiKeys: { authenticate: async () => (order.push('key'), { user }) },
        access: { resolve: async () => (order.push('access'), level('read')()) },
        refreshEpoch: async () => void order.push('epoch'),
      },
      caller,
    );
    expect(order).toEqual(['epoch', 'key', 'access']);
  });
});

describe('sharedRefresh', () => {
  it('one epoch read for every check within maxAgeMs of it', async () => {
    let reads = 0;
    let now = 1_000;
    const refresh = sharedRefresh(
      async () => void reads++,
      1_000,
      () => now,
    );
    await Promise.all([refresh(), refresh(), refresh()]);
    expect(reads).toBe(1);
    now += 999;
    await refresh();
    expect(reads).toBe(1);
    now += 1;
    await refresh();
    expect(reads).toBe(2);
  });
});
