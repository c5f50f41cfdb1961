import { makeListOwnedStories } from './list-owned-stories';
import type { OwnedStoriesReader } from './ports';

/** A reader that answers nothing and records what it was asked. */
function fakeReader() {
  const asked: string[] = [];
  const reader: OwnedStoriesReader = {
    listOwned: async (query) => {
      asked.push(`owned ${JSON.stringify({ ...query, filter: query.filter ? 'set' : 'none' })}`);
      return { stories: [], total: 0 };
    },
  };
  return { reader, asked };
}

describe('ListOwnedStories', () => {
  it('pages, or reads everything with `all`; checks the filter and ids', async () => {
    const { reader, asked } = fakeReader();
    const list = makeListOwnedStories(reader);
    const base = { ownerId: 4, projectIds: [9, 3, 9], where: '', page: 3, pageSize: 10, all: false };
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
});
