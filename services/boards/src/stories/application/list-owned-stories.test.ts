import { makeListOwnedStories } from './list-owned-stories';
import type { OwnedStoriesReader } from './ports';

/** A reader that answers nothing and records what it was asked. */
function fakeReader() {
  const asked: string[] = [];
  const record = (name: string, query: { filter?: unknown }) =>
    asked.push(`${name} ${JSON.stringify({ ...query, filter: query.filter ? 'set' : 'none' })}`);
  const reader: OwnedStoriesReader = {
    listOwned: async (query) => {
      record('owned', query);
      return { stories: [], total: 0 };
    },
    listOwnedById: async (query) => {
      record('by id', query);
      return { stories: [], total: 0, more: false };
    },
  };
  return { reader, asked };
}

describe('ListOwnedStories', () => {
  const base = { ownerId: 4, projectIds: [9, 3, 9], where: '', page: 3, pageSize: 10, all: false };

  it('pages, or reads everything with `all`; checks the filter and ids', async () => {
    const { reader, asked } = fakeReader();
    const list = makeListOwnedStories(reader);
    await list(base);
    await list({ ...base, where: 'color:red', all: true, page: 0, pageSize: 0 });
    expect(asked).toEqual([
      'owned {"ownerId":4,"projectIds":[9,3],"filter":"none","offset":20,"limit":10}',
      'owned {"ownerId":4,"projectIds":[9,3],"filter":"set","offset":0,"limit":null}',
    ]);
    await expect(list({ ...base, where: 'colour:red' })).rejects.toMatchObject({ kind: 'InvalidArgument' });
    await expect(list({ ...base, page: 0 })).rejects.toMatchObject({ kind: 'InvalidArgument' });
    await expect(list({ ...base, ownerId: 0 })).rejects.toMatchObject({ kind: 'InvalidArgument' });
  });

  it('pages by keyset after a story and its project (page ignored), never together with `all`', async () => {
    const { reader, asked } = fakeReader();
    const list = makeListOwnedStories(reader);
    expect(await list({ ...base, page: 0, after: { id: 5, projectId: 3 } })).toEqual({
      stories: [],
      total: 0,
      more: false,
    });
    expect(asked).toEqual([
      'by id {"ownerId":4,"projectIds":[9,3],"filter":"none","afterProjectId":3,"afterId":5,"limit":10}',
    ]);
    for (const wrong of [
      { all: true },
      { after: { id: -1, projectId: 0 } },
      { after: { id: 1, projectId: -1 } },
      { pageSize: 0 },
    ])
      await expect(list({ ...base, after: { id: 0, projectId: 0 }, ...wrong })).rejects.toMatchObject({
        kind: 'InvalidArgument',
        problem: 'invalid-parameter',
      });
    expect(asked).toHaveLength(1);
  });
});
