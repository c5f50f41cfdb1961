import { createLogger } from '@flowboard/service-kit';
import { KeyUseRecorder } from './key-uses';

type Batch = Array<{ api_key_id: number; use_time: string }>;

function recorder(fail = () => false) {
  const batches: Batch[] = [];
  let now = Date.parse('2026-11-28T04:00:00.000Z');
  const membership = {
    recordApiKeyUse: async (request: { uses: Batch }) => {
      if (fail()) throw new Error('membership is down');
      batches.push(request.uses);
      return {};
    },
  };
  const uses = new KeyUseRecorder(membership as never, createLogger('test', 'silent'), 60_000, () => now);
  return { uses, batches, tick: (ms: number) => (now += ms) };
}

describe('recording when keys were used', () => {
  it('sends one batch with the last use of each key, and nothing when none was used', async () => {
    const { uses, batches, tick } = recorder();
    uses.note(1);
    tick(500);
    uses.note(2);
    tick(500);
    uses.note(1);
    await uses.flush();
    await uses.flush();
    expect(batches).toEqual([
      [
        { api_key_id: 1, use_time: '2026-11-28T04:00:01.000Z' },
        { api_key_id: 2, use_time: '2026-11-28T04:00:00.500Z' },
      ],
    ]);
  });

  it('keeps a failed batch for the next, unless a newer use replaced it', async () => {
    let down = true;
    const { uses, batches, tick } = recorder(() => down);
    uses.note(1);
    uses.note(2);
    await uses.flush();
    tick(1_000);
    uses.note(2);
    down = false;
    await uses.stop();
    expect(batches).toEqual([
      [
        { api_key_id: 1, use_time: '2026-11-28T04:00:00.000Z' },
        { api_key_id: 2, use_time: '2026-11-28T04:00:01.000Z' },
      ],
    ]);
  });
});
