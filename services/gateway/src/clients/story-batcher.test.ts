import { isDomainError } from '@flowboard/service-kit';
import type { boards } from '@flowboard/proto';
import { storyBatcher, type FetchStories } from './story-batcher';

const story = (projectId: number, id: number) =>
  ({ id, project_id: projectId, text: `s${id}` }) as boards.Story__Output;

/** A fake boards that has stories 1..10 in every project and records each batch it is asked for. */
function setUp(fail?: Error) {
  const calls: Array<[number, number[]]> = [];
  const fetchStories: FetchStories = async (projectId, storyIds) => {
    calls.push([projectId, storyIds]);
    if (fail) throw fail;
    return storyIds.filter((id) => id <= 10).map((id) => story(projectId, id));
  };
  return { calls, read: storyBatcher(fetchStories) };
}

describe('storyBatcher', () => {
  it('sends the reads of one turn of the event loop as one call per project, each read its own story', async () => {
    const { calls, read } = setUp();
    const reads = [read(1, 3), read(1, 5), read(2, 3), read(1, 3)];
    expect(calls).toEqual([]); // nothing before the turn is over
    const stories = await Promise.all(reads);
    expect(stories.map((s) => [s.project_id, s.id])).toEqual([
      [1, 3],
      [1, 5],
      [2, 3],
      [1, 3],
    ]);
    expect(calls).toEqual([
      [1, [3, 5]],
      [2, [3]],
    ]);
  });

  it('a read of a story that does not exist is NotFound, and only that read', async () => {
    const { read } = setUp();
    const [missing, found] = await Promise.allSettled([read(1, 99), read(1, 2)]);
    expect(missing.status).toBe('rejected');
    const reason = (missing as PromiseRejectedResult).reason;
    expect(isDomainError(reason) && reason.kind).toBe('NotFound');
    expect(found).toMatchObject({ status: 'fulfilled', value: { id: 2 } });
  });

  it('a failed call fails every read it carried', async () => {
    const { read } = setUp(new Error('boards unavailable'));
    const results = await Promise.allSettled([read(1, 1), read(1, 2)]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
  });

  it('reads of later turns go in later calls', async () => {
    const { calls, read } = setUp();
    await read(1, 1);
    await read(1, 2);
    expect(calls).toEqual([
      [1, [1]],
      [1, [2]],
    ]);
  });

  it('never asks for more than 1,000 stories in one call', async () => {
    const { calls, read } = setUp();
    await Promise.allSettled(Array.from({ length: 2500 }, (_, i) => read(1, i + 1)));
    expect(calls.map(([, ids]) => ids.length)).toEqual([1000, 1000, 500]);
  });
});
