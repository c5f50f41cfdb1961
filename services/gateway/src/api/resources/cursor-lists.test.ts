import { OPERATIONS } from '.';

// Which lists page by cursor (README "Sync: cursors and updatedSince"): the declarations say it to the OpenAPI
// document and the MCP tools, so it is pinned here once.
describe('cursor paging as the operations declare it', () => {
  const lists = OPERATIONS.filter(
    (op) => op.method === 'GET' && (op.paged || (typeof op.ok === 'object' && 'page' in op.ok)),
  );

  it('every list read pages by cursor, but search (ranked, not walked)', () => {
    expect(lists.filter((op) => !op.cursor).map((op) => op.operationId)).toEqual([
      'searchProjectStories',
      'searchMyStories',
    ]);
    expect(lists.filter((op) => op.cursor).map((op) => op.operationId)).toEqual(
      expect.arrayContaining([
        'listStories',
        'listPhaseStories',
        'listTags',
        'listTagStories',
        'listStoryTags',
        'listTasks',
        'listComments',
        'listMyStories',
        'listWebhookDeliveries',
        'listProjects',
      ]),
    );
  });

  it('no write declares it: a write answering a page answers it by number', () => {
    expect(OPERATIONS.filter((op) => op.cursor && op.method !== 'GET').map((op) => op.operationId)).toEqual(
      [],
    );
  });
});
