import * as grpc from '@grpc/grpc-js';
import { loadBoardsLegacyService, type boards, type BoardsLegacyClient } from '@flowboard/proto';
import { boardsPort, call, createBoard, createStory, newProjectId, useBoardsService } from './harness';

// Gateways of the release before boards was split by aggregate call every RPC as `flowboard.boards.v1.BoardsService`
// (and this release's gateway still does): the same handlers answer under that name, so old and new pods can mix
// during a rolling upgrade.
useBoardsService();

let legacy: BoardsLegacyClient;
beforeAll(() => {
  legacy = new (loadBoardsLegacyService())(`127.0.0.1:${boardsPort()}`, grpc.credentials.createInsecure());
});
afterAll(() => legacy.close());

function legacyCall<Res>(method: 'ListPhases' | 'GetStory' | 'CreateStory', request: object): Promise<Res> {
  const metadata = new grpc.Metadata();
  metadata.set('x-flowboard-user-id', '42');
  const fn = (legacy as unknown as Record<string, grpc.requestCallback<Res> | undefined>)[
    method
  ] as unknown as (
    req: object,
    md: grpc.Metadata,
    options: grpc.CallOptions,
    cb: grpc.requestCallback<Res>,
  ) => void;
  return new Promise((resolve, reject) =>
    fn.call(legacy, request, metadata, { deadline: Date.now() + 10_000 }, (err, res) =>
      err ? reject(err) : resolve(res as Res),
    ),
  );
}

it('answers every method under the name before the split, as the six services do', async () => {
  const projectId = newProjectId();
  await createBoard(projectId);
  const story = await createStory({ project_id: projectId, text: 'written through StoriesService' });

  for (const [method, request] of [
    ['ListPhases', { project_id: projectId }],
    ['GetStory', { project_id: projectId, story_id: story.id }],
  ] as const) {
    expect(await legacyCall(method, request)).toEqual(await call(method, request));
  }
  const { story: written } = await legacyCall<boards.CreateStoryResponse__Output>('CreateStory', {
    project_id: projectId,
    text: 'written through BoardsService',
  });
  const { story: read } = await call<boards.GetStoryResponse__Output>('GetStory', {
    project_id: projectId,
    story_id: written!.id,
  });
  expect(read?.text).toBe('written through BoardsService');
});
