import { EVENT_STREAM_HEADERS, sseComment, sseEvent, sseStart } from './sse';

describe('server-sent events on the wire', () => {
  it('an event block: event, id, data, then a blank line', () => {
    expect(sseEvent({ event: 'story.created', id: '1-0-1', data: '{"id":1}' })).toBe(
      'event: story.created\nid: 1-0-1\ndata: {"id":1}\n\n',
    );
    expect(sseEvent({ data: 'x' })).toBe('data: x\n\n');
  });

  it('data over several lines becomes one data line each (the client joins them with \\n)', () => {
    expect(sseEvent({ data: 'a\nb\r\nc\rd' })).toBe('data: a\ndata: b\ndata: c\ndata: d\n\n');
    expect(sseEvent({ data: '' })).toBe('data: \n\n');
  });

  it('refuses an event name or id that spans lines, and an id with NUL (clients would drop it)', () => {
    expect(() => sseEvent({ event: 'a\nb', data: 'x' })).toThrow('cannot span lines');
    expect(() => sseEvent({ id: 'a\rb', data: 'x' })).toThrow('cannot span lines');
    expect(() => sseEvent({ id: 'a\u0000', data: 'x' })).toThrow('NUL');
  });

  it('the first block: retry, and the start position as an id without data', () => {
    expect(sseStart(3000, '1-0-5')).toBe('retry: 3000\nid: 1-0-5\n\n');
    expect(sseStart(3000)).toBe('retry: 3000\n\n');
    expect(() => sseStart(-1)).toThrow(RangeError);
  });

  it('comments, and the headers of a stream', () => {
    expect(sseComment('keep-alive')).toBe(': keep-alive\n\n');
    expect(EVENT_STREAM_HEADERS).toEqual({
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache',
      'X-Accel-Buffering': 'no',
    });
  });
});
