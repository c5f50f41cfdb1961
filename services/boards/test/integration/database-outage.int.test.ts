import * as grpc from '@grpc/grpc-js';
import { startTcpProxy, type TcpProxy } from '@flowboard/testing';
import {
  BOARDS_DATABASE_URL,
  createBoard,
  createStory,
  grpcError,
  listStories,
  newProjectId,
  useBoardsService,
} from './harness';

// PostgreSQL taken away from this boards instance only (a relay in front of the real server, cut and restored):
// reads and writes answer UNAVAILABLE (the gateway's 503), nothing is half-written, and it serves again after.
let db: TcpProxy;
beforeAll(async () => {
  db = await startTcpProxy(BOARDS_DATABASE_URL);
});
useBoardsService({ consumerGroup: false }, () => db.through(BOARDS_DATABASE_URL));
afterAll(() => db.close());

it('answers UNAVAILABLE while its database is unreachable, and serves again once it is back', async () => {
  const projectId = newProjectId();
  const [phase] = await createBoard(projectId);
  await createStory({ project_id: projectId, phase_id: phase!.id, text: 'before the outage' });

  await db.cut();
  try {
    for (const failed of [
      await grpcError(listStories({ project_id: projectId })),
      await grpcError(createStory({ project_id: projectId, phase_id: phase!.id, text: 'during the outage' })),
    ]) {
      expect(failed.code).toBe(grpc.status.UNAVAILABLE);
      expect(failed.details).toBe('A backing service is unavailable');
    }
  } finally {
    await db.restore();
  }

  const after = await listStories({ project_id: projectId });
  expect(after.stories.map((s) => s.text)).toEqual(['before the outage']);
});
