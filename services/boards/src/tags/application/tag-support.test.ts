import type { OutboxMessage } from '@flowboard/events';
import { DomainError } from '@flowboard/service-kit';
import { resourceChanges } from '../../testing/in-memory-store';
import type { TagRecord, TagRepository } from './ports';
import type { TagsRepositories } from './tags-store';
import { resolvePathTag, resolveTagRefs } from './tag-support';
import { MAX_TAG_REFS } from '../domain/tags';

/** An in-memory tag table with just what resolution reads and writes. */
function fakeTags(initial: Array<[number, string]>) {
  const tags: TagRecord[] = initial.map(([id, name]) => ({ id, projectId: 1, name, version: 1 }));
  const ensured: string[] = [];
  const published: OutboxMessage[] = [];
  let nextId = 100;
  const repo: Partial<TagRepository> = {
    find: async (_p, id) => tags.find((t) => t.id === id),
    findByName: async (_p, name) => tags.find((t) => t.name.toLowerCase() === name.toLowerCase()),
    findByIds: async (_p, ids) => tags.filter((t) => ids.includes(t.id)),
    async ensure(_p, name) {
      ensured.push(name);
      const found = tags.find((t) => t.name.toLowerCase() === name.toLowerCase());
      if (found) return { tag: found, created: false };
      const tag = { id: ++nextId, projectId: 1, name, version: 1 };
      tags.push(tag);
      return { tag, created: true };
    },
  };
  const outbox = { enqueue: async (m: OutboxMessage) => void published.push(m) };
  return { repos: { tags: repo as TagRepository, outbox } as TagsRepositories, tags, ensured, published };
}

/** Project 1, by user 7. */
const WRITE = { projectId: 1, actorId: 7 };

const kindOf = async (promise: Promise<unknown>) => {
  try {
    await promise;
  } catch (err) {
    return [(err as DomainError).kind, (err as DomainError).problem];
  }
  return undefined;
};

describe('resolvePathTag', () => {
  it('tries a number as an id first, then as a name; a name ignoring case; none → NotFound', async () => {
    const { repos } = fakeTags([
      [5, 'five'],
      [6, '5'],
      [7, '12345'],
    ]);
    expect((await resolvePathTag(repos, 1, '5')).id).toBe(5);
    expect((await resolvePathTag(repos, 1, '12345')).id).toBe(7);
    expect((await resolvePathTag(repos, 1, ' FIVE ')).id).toBe(5);
    expect(await kindOf(resolvePathTag(repos, 1, 'six'))).toEqual(['NotFound', 'not-found']);
    expect(await kindOf(resolvePathTag(repos, 1, '  '))).toEqual(['NotFound', 'not-found']);
  });
});

describe('resolveTagRefs', () => {
  it('keeps known ids, creates unknown names once (ignoring case), dedupes', async () => {
    const { repos, ensured, published } = fakeTags([[3, 'known']]);
    const tags = await resolveTagRefs(repos, WRITE, [
      { kind: 'id', id: 3 },
      { kind: 'name', name: 'New' },
      { kind: 'name', name: 'new' },
      { kind: 'name', name: 'KNOWN' },
      { kind: 'id', id: 3 },
    ]);
    expect(tags.map((t) => [t.id, t.name])).toEqual([
      [3, 'known'],
      [101, 'New'],
    ]);
    expect(ensured).toEqual(['KNOWN', 'New']);
    // `tag.created` for the one it created, by the writer.
    expect(resourceChanges(published).map((e) => [e.type, e.subject, e.actorId, e.resource])).toEqual([
      ['tag.created', 'tag:101', 7, { id: 101, name: 'New', version: 1 }],
    ]);
  });

  it('a numeric string that is no id becomes a name; a bare unknown id → 400 invalid-reference', async () => {
    const { repos, tags } = fakeTags([]);
    expect(await resolveTagRefs(repos, WRITE, [{ kind: 'id', id: 2024, name: '2024' }])).toEqual([
      { id: 101, projectId: 1, name: '2024', version: 1 },
    ]);
    expect(tags.map((t) => t.name)).toEqual(['2024']);
    expect(await kindOf(resolveTagRefs(repos, WRITE, [{ kind: 'id', id: 77 }]))).toEqual([
      'InvalidArgument',
      'invalid-reference',
    ]);
  });

  it(`refuses more than ${MAX_TAG_REFS} references before touching the store`, async () => {
    const refs = Array.from({ length: MAX_TAG_REFS + 1 }, (_, i) => ({
      kind: 'name' as const,
      name: `t${i}`,
    }));
    expect(await kindOf(resolveTagRefs({} as TagsRepositories, WRITE, refs))).toEqual([
      'InvalidArgument',
      'invalid-field',
    ]);
  });
});
