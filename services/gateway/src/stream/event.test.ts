import { renderPayloads, streamEvent, unrenderedStreamEvent, type PayloadRenderer } from './event';

/** A renderer that records each call's sources and renders `<source>!`; `fail` makes its next call fail. */
function recordingRenderer() {
  const calls: string[][] = [];
  let fail = false;
  let hold: Promise<void> | undefined;
  const renderer: PayloadRenderer<string> = {
    async render(sources) {
      calls.push([...sources]);
      await hold;
      if (fail) {
        fail = false;
        throw new Error('names unavailable');
      }
      return sources.map((source) => `${source}!`);
    },
  };
  return {
    renderer,
    calls,
    failNext: () => (fail = true),
    holdUntil: (until: Promise<void>) => (hold = until),
  };
}

const unrendered = (offset: number, renderer: PayloadRenderer<string>, source = `change ${offset}`) =>
  unrenderedStreamEvent({
    partition: 0,
    offset,
    projectId: 7,
    type: 'story.moved',
    source,
    bytes: 10,
    renderer,
  });

describe('stream events', () => {
  it('made with their payload: readable at once, sized in UTF-8 bytes, with their position', async () => {
    const event = streamEvent({ partition: 2, offset: 9, projectId: 7, type: 'story.created', payload: 'é' });
    expect(event.payload).toBe('é');
    expect(event.bytes).toBe(2);
    expect(event.position).toBe('1-2-a');
    await renderPayloads([event]); // nothing to render
    expect(event.payload).toBe('é');
  });

  it('made to be rendered later: read too early is an error; rendered once, each renderer once for its events', async () => {
    const first = recordingRenderer();
    const second = recordingRenderer();
    const events = [
      unrendered(1, first.renderer),
      unrendered(2, second.renderer),
      unrendered(3, first.renderer),
    ];
    expect(events[0]!.bytes).toBe(10);
    expect(() => events[0]!.payload).toThrow(/before it was rendered/);

    await renderPayloads(events);
    expect(events.map((e) => e.payload)).toEqual(['change 1!', 'change 2!', 'change 3!']);
    expect(first.calls).toEqual([['change 1', 'change 3']]);
    expect(second.calls).toEqual([['change 2']]);

    await renderPayloads(events);
    expect(first.calls).toHaveLength(1); // rendered events are kept as they are
  });

  it('a render in progress is waited for, not repeated', async () => {
    const recording = recordingRenderer();
    let release = () => {};
    recording.holdUntil(new Promise<void>((resolve) => (release = resolve)));
    const events = [unrendered(1, recording.renderer), unrendered(2, recording.renderer)];
    const one = renderPayloads(events);
    const other = renderPayloads([events[1]!]);
    let otherDone = false;
    void other.then(() => (otherDone = true));
    await Promise.resolve();
    expect(otherDone).toBe(false);
    release();
    await Promise.all([one, other]);
    expect(recording.calls).toEqual([['change 1', 'change 2']]);
    expect(events[1]!.payload).toBe('change 2!');
  });

  it('a render that fails leaves its events to the next call', async () => {
    const recording = recordingRenderer();
    const events = [unrendered(1, recording.renderer)];
    recording.failNext();
    await expect(renderPayloads(events)).rejects.toThrow('names unavailable');
    expect(() => events[0]!.payload).toThrow(/before it was rendered/);
    await renderPayloads(events);
    expect(events[0]!.payload).toBe('change 1!');
    expect(recording.calls).toHaveLength(2);
  });
});
