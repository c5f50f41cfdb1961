import * as grpc from '@grpc/grpc-js';
import { createPool, migrate } from '@flowboard/pg-kit';
import { loadBoardsProto, type boards } from '@flowboard/proto';
import { createLogger } from '@flowboard/service-kit';
import { requireEnv } from '@flowboard/testing';
import { createApp, type BoardsApp } from '../../src/app';
import { loadBoardsConfig } from '../../src/config';
import { MIGRATIONS_DIR } from '../../src/db/migrations-dir';

// Real PostgreSQL (schema `boards`, role `boards`), the real gRPC server on port 0, a real client.
const { BOARDS_DATABASE_URL } = requireEnv('BOARDS_DATABASE_URL');

let app: BoardsApp;
let client: boards.BoardsServiceClient;
const admin = createPool({
  connectionString: BOARDS_DATABASE_URL,
  schema: 'boards',
  applicationName: 'boards-test',
  max: 2,
});

// Each test works on its own projects: random ids far above anything a real run creates.
const newProjectId = () => 1_000_000_000 + Math.floor(Math.random() * 8_000_000_000_000);

beforeAll(async () => {
  await migrate(admin, { schema: 'boards', dir: MIGRATIONS_DIR });
  await migrate(admin, { schema: 'boards', dir: MIGRATIONS_DIR }); // idempotent
  const config = loadBoardsConfig({ DATABASE_URL: BOARDS_DATABASE_URL, GRPC_PORT: '0', LOG_LEVEL: 'silent' });
  app = createApp(config, createLogger('boards-test', 'silent'));
  const port = await app.start();
  const { BoardsService } = loadBoardsProto().flowboard.boards.v1;
  client = new BoardsService(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
});

afterAll(async () => {
  client?.close();
  await app?.stop();
  await admin.end();
});

type Method =
  'CreateBoard' | 'ListPhases' | 'CreateStory' | 'GetStory' | 'ListStories' | 'UpdateStory' | 'DeleteStory';

/** One unary call with the caller in metadata, as the gateway makes it. */
function call<Res>(method: Method, request: object, userId: number | null = 42): Promise<Res> {
  const metadata = new grpc.Metadata();
  if (userId !== null) metadata.set('x-flowboard-user-id', String(userId));
  metadata.set('x-request-id', 'boards-int-test');
  type Unary = (
    request: object,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: (err: grpc.ServiceError | null, res: Res) => void,
  ) => grpc.ClientUnaryCall;
  const fn = (client[method] as unknown as Unary).bind(client);
  return new Promise((resolve, reject) =>
    fn(request, metadata, { deadline: Date.now() + 10_000 }, (err, res) =>
      err ? reject(err) : resolve(res),
    ),
  );
}

const createBoard = (projectId: number) =>
  call<boards.CreateBoardResponse__Output>('CreateBoard', { project_id: projectId }).then((r) => r.phases);
const createStory = (request: Partial<boards.CreateStoryRequest>, userId: number | null = 42) =>
  call<boards.CreateStoryResponse__Output>('CreateStory', { text: 'A story', ...request }, userId).then(
    (r) => r.story!,
  );

async function grpcError(promise: Promise<unknown>): Promise<grpc.ServiceError> {
  try {
    await promise;
  } catch (e) {
    return e as grpc.ServiceError;
  }
  throw new Error('expected the call to fail');
}

const listStories = (request: Partial<boards.ListStoriesRequest>) =>
  call<boards.ListStoriesResponse__Output>('ListStories', { page: 1, page_size: 100, ...request });
const updateStory = (request: Partial<boards.UpdateStoryRequest>) =>
  call<boards.UpdateStoryResponse__Output>('UpdateStory', request).then((r) => r.story!);
const reason = (err: grpc.ServiceError) => err.metadata.get('flowboard-problem')[0];

/** A board with stories: [text, phase index, extra fields]. */
async function seeded(specs: Array<[string, number, Partial<boards.CreateStoryRequest>?]>) {
  const projectId = newProjectId();
  const phases = await createBoard(projectId);
  const stories = [];
  for (const [text, index, extra] of specs) {
    stories.push(await createStory({ project_id: projectId, text, phase_id: phases[index]!.id, ...extra }));
  }
  return { projectId, phases, stories };
}

const texts = (r: boards.ListStoriesResponse__Output) => r.stories.map((s) => s.text);

describe('ListStories', () => {
  it('pages in board order (phase index, then position) with exact totals', async () => {
    const { projectId } = await seeded([
      ['w1', 2],
      ['b1', 0],
      ['a1', 4],
      ['b2', 0],
      ['w2', 2],
    ]);
    expect(texts(await listStories({ project_id: projectId }))).toEqual(['b1', 'b2', 'w1', 'w2', 'a1']);
    const second = await listStories({ project_id: projectId, page: 2, page_size: 2 });
    expect([texts(second), second.total_items]).toEqual([['w1', 'w2'], 5]);
    const past = await listStories({ project_id: projectId, page: 9, page_size: 2 });
    expect([texts(past), past.total_items]).toEqual([[], 5]);
  });

  it('filters with the full grammar, never splicing values into SQL', async () => {
    const { projectId, phases } = await seeded([
      [
        'Build Spec house',
        2,
        { color: 'teal', size: '5', priority: '9', owner_id: 7, details: 'Only have 2 weeks' },
      ],
      ['Unveil Business Model, Starla', 3, { color: 'orange' }],
      ['Buy boat "The Sea Word"', 4, { color: 'orange', deadline: '2011-02-24T10:00:00' }],
    ]);
    const where = async (w: string, users: boards.UserAlias[] = []) =>
      texts(await listStories({ project_id: projectId, where: w, users }));
    expect(await where('color:ORANGE')).toEqual(['Unveil Business Model, Starla', 'Buy boat "The Sea Word"']);
    expect(await where('text:"the sea word"')).toEqual(['Buy boat "The Sea Word"']);
    expect(await where('text:"\\"The Sea"')).toEqual(['Buy boat "The Sea Word"']);
    expect(await where('details:WEEKS and size:5 and priority:9')).toEqual(['Build Spec house']);
    expect(await where('status:invalid')).toEqual([]);
    expect(await where('not(status:invalid)')).toHaveLength(3);
    expect(await where('not(owner:7)')).toEqual(['Unveil Business Model, Starla', 'Buy boat "The Sea Word"']);
    expect(await where(`phase:${phases[4]!.id} or phase:complete`)).toEqual([
      'Unveil Business Model, Starla',
      'Buy boat "The Sea Word"',
    ]);
    expect(await where('status:finished OR (color:teal AND not(id:2))')).toEqual([
      'Build Spec house',
      'Buy boat "The Sea Word"',
    ]);
    expect(await where('owner:gob', [{ id: 7, user_name: 'Gob', name: 'Gob Bluth' }])).toEqual([
      'Build Spec house',
    ]);
    expect(await where('owner:"gob bluth"', [{ id: 7, user_name: 'Gob', name: 'Gob Bluth' }])).toEqual([
      'Build Spec house',
    ]);
    expect(await where('owner:nobody')).toEqual([]);
    expect(await where('creator:42')).toHaveLength(3);
    expect(await where('tag:anything')).toEqual([]);
    expect(await where('deadline:2011-02-24')).toEqual(['Buy boat "The Sea Word"']);
    expect(await where('deadline:<2011-02-24')).toEqual([]);
    expect(await where('deadline:bogus')).toEqual([]);
    expect(await where('text:"\'; DROP TABLE stories; --"')).toEqual([]);
    expect(await where('text:%')).toEqual([]);
    expect(await where('text:_')).toEqual([]);
  });

  it('refuses a bad filter or paging as INVALID_ARGUMENT with its problem', async () => {
    const { projectId } = await seeded([]);
    const unknown = await grpcError(listStories({ project_id: projectId, where: 'colour:red' }));
    expect([unknown.code, reason(unknown)]).toEqual([grpc.status.INVALID_ARGUMENT, 'invalid-filter']);
    expect(unknown.details).toMatch(/colour/);
    const paging = await grpcError(listStories({ project_id: projectId, page: 0 }));
    expect(reason(paging)).toBe('invalid-parameter');
  });
});

describe('UpdateStory / DeleteStory', () => {
  const history = async (projectId: number, storyId: number) => {
    const m = await admin.query(
      `SELECT phase_id, end_time IS NULL AS open FROM story_milestones WHERE project_id = $1 AND story_id = $2 ORDER BY id`,
      [projectId, storyId],
    );
    const s = await admin.query(
      `SELECT type, end_time IS NULL AS open FROM story_steps WHERE project_id = $1 AND story_id = $2 ORDER BY id`,
      [projectId, storyId],
    );
    return { milestones: m.rows, steps: s.rows };
  };

  it('updates any subset; moves first, then status; history rows close and open', async () => {
    const { projectId, phases } = await seeded([['s', 0]]);
    const story = await updateStory({
      project_id: projectId,
      story_id: 1,
      update_mask: ['phase', 'status', 'blocked_reason', 'size', 'owner', 'deadline', 'unknown'],
      phase_id: phases[2]!.id,
      status: 'blocked',
      blocked_reason: 'waiting on Gob',
      size: ' L ',
      owner_id: 9,
      deadline: '2011-02-24',
      text: 'ignored: not in the mask',
    });
    expect(story).toMatchObject({
      text: 's',
      size: 'L',
      status: 'blocked',
      blocked_reason: 'waiting on Gob',
      owner_id: 9,
      deadline: '2011-02-24T00:00:00',
      phase: { id: phases[2]!.id, name: 'Working' },
    });
    const archived = await updateStory({
      project_id: projectId,
      story_id: 1,
      update_mask: ['phase', 'owner', 'deadline'],
      phase_id: phases[4]!.id,
      owner_id: 0,
      deadline: '',
    });
    expect(archived).toMatchObject({ status: 'finished', blocked_reason: '', owner_id: 0, deadline: '' });
    // Same phase again: no milestone, no step.
    await updateStory({
      project_id: projectId,
      story_id: 1,
      update_mask: ['phase'],
      phase_id: phases[4]!.id,
    });
    expect(await history(projectId, 1)).toEqual({
      milestones: [
        { phase_id: phases[0]!.id, open: false },
        { phase_id: phases[2]!.id, open: false },
        { phase_id: phases[4]!.id, open: true },
      ],
      steps: [
        { type: 'backlog', open: false },
        { type: 'blocked', open: false },
        { type: 'archive', open: true },
      ],
    });
  });

  it('refuses status rules and unknown phases; NOT_FOUND for unknown stories', async () => {
    const { projectId, phases } = await seeded([['s', 0]]);
    const inBacklog = await grpcError(
      updateStory({ project_id: projectId, story_id: 1, update_mask: ['status'], status: 'started' }),
    );
    expect([inBacklog.code, reason(inBacklog)]).toEqual([grpc.status.INVALID_ARGUMENT, 'invalid-state']);
    const foreign = await seeded([]);
    const phase = await grpcError(
      updateStory({
        project_id: projectId,
        story_id: 1,
        update_mask: ['phase'],
        phase_id: foreign.phases[1]!.id,
      }),
    );
    expect(reason(phase)).toBe('invalid-reference');
    const missing = await grpcError(
      updateStory({ project_id: projectId, story_id: 99, update_mask: ['text'], text: 'x' }),
    );
    expect(missing.code).toBe(grpc.status.NOT_FOUND);
    expect((await listStories({ project_id: projectId })).stories[0]).toMatchObject({
      status: 'planned',
      phase: { id: phases[0]!.id },
    });
  });

  it('deletes a story with its history; a second delete is NOT_FOUND', async () => {
    const { projectId } = await seeded([['s', 2]]);
    await call('DeleteStory', { project_id: projectId, story_id: 1 });
    expect((await listStories({ project_id: projectId })).total_items).toBe(0);
    expect(await history(projectId, 1)).toEqual({ milestones: [], steps: [] });
    expect((await grpcError(call('DeleteStory', { project_id: projectId, story_id: 1 }))).code).toBe(
      grpc.status.NOT_FOUND,
    );
  });

  it('keeps board positions unique and history consistent under 30 parallel moves', async () => {
    const specs: Array<[string, number]> = Array.from({ length: 10 }, (_, i) => [`s${i}`, 0]);
    const { projectId, phases } = await seeded(specs);
    const moves = Array.from({ length: 30 }, (_, i) =>
      updateStory({
        project_id: projectId,
        story_id: (i % 10) + 1,
        update_mask: ['phase'],
        phase_id: phases[1 + (i % 3)]!.id,
      }),
    );
    await Promise.all(moves);
    const { rows } = await admin.query(
      `SELECT phase_id, array_agg(board_position ORDER BY board_position) AS positions, count(*)::int AS n
       FROM stories WHERE project_id = $1 GROUP BY phase_id`,
      [projectId],
    );
    for (const row of rows) expect(new Set(row.positions).size).toBe(row.n);
    const open = await admin.query(
      `SELECT count(*)::int AS n FROM story_milestones WHERE project_id = $1 AND end_time IS NULL`,
      [projectId],
    );
    expect(open.rows[0].n).toBe(10);
    const listed = await listStories({ project_id: projectId });
    expect(listed.total_items).toBe(10);
  });
});
