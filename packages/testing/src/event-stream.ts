/** One server-sent event as a client gets it: `event:`, `id:` and `data:` (lines joined by `\n`). */
export interface ServerSentEvent {
  event: string;
  id: string | undefined;
  data: string;
}

/**
 * A server-sent events connection read as an EventSource would (WHATWG HTML, "Interpreting an event stream"), kept
 * open until `close()`: the events so far, the comment lines (heartbeats), whether the server ended it, and waits on
 * them. No reconnection: a test reconnects itself, with the `Last-Event-ID` it chooses.
 */
export class EventStreamClient {
  readonly events: ServerSentEvent[] = [];
  /** Comment lines (`: ...`), e.g. heartbeats. */
  comments = 0;
  /** The last `id:` seen, as an EventSource keeps it for its reconnection. */
  lastEventId: string | undefined;
  /** Set once the server ended the response (or the connection failed). */
  ended: Error | 'ended' | undefined;
  private readonly controller = new AbortController();
  private readonly listeners = new Set<() => void>();

  private constructor(readonly response: Response) {}

  /** Opens the stream; resolves once the response head is there (any status: check `response.status`). */
  static async open(url: string, headers: Record<string, string> = {}): Promise<EventStreamClient> {
    const controller = new AbortController();
    const response = await fetch(url, {
      headers: { Accept: 'text/event-stream', ...headers },
      signal: controller.signal,
    });
    const client = new EventStreamClient(response);
    client.controller.signal.addEventListener('abort', () => controller.abort());
    if (response.ok && response.body) void client.read(response.body);
    else client.ended = 'ended';
    return client;
  }

  /** Waits until `check` answers something other than undefined (checked on every event); throws after timeoutMs. */
  async waitFor<T>(
    check: (events: ServerSentEvent[]) => T | undefined,
    what: string,
    timeoutMs = 30_000,
  ): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = check(this.events);
      if (found !== undefined) return found;
      if (this.ended !== undefined) {
        throw new Error(
          `the stream ended (${String(this.ended)}) before ${what}; ${this.events.length} events`,
        );
      }
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; ${this.events.length} events`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, Math.min(left, 500));
        function done() {
          clearTimeout(timer);
          resolve();
        }
        this.listeners.add(done);
      });
    }
  }

  /** Waits until the server ends the response. */
  async waitForEnd(what: string, timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.ended === undefined) {
      if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  close(): void {
    this.controller.abort();
  }

  private notify(): void {
    for (const listener of [...this.listeners]) listener();
    this.listeners.clear();
  }

  private async read(body: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    let buffer = '';
    let event = '';
    let id: string | undefined;
    let data: string[] = [];
    try {
      for await (const chunk of body) {
        buffer += decoder.decode(chunk, { stream: true });
        let newline: number;
        while ((newline = buffer.search(/\r\n|\r|\n/)) >= 0) {
          const line = buffer.slice(0, newline);
          buffer = buffer.slice(newline + (buffer.startsWith('\r\n', newline) ? 2 : 1));
          if (line === '') {
            if (data.length > 0) {
              this.events.push({ event: event || 'message', id, data: data.join('\n') });
              this.notify();
            }
            event = '';
            data = [];
            continue;
          }
          if (line.startsWith(':')) {
            this.comments++;
            continue;
          }
          const colon = line.indexOf(':');
          const field = colon < 0 ? line : line.slice(0, colon);
          const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
          if (field === 'event') event = value;
          else if (field === 'data') data.push(value);
          else if (field === 'id' && !value.includes('\0')) id = this.lastEventId = value;
        }
      }
      this.ended = 'ended';
    } catch (err) {
      this.ended = err instanceof Error ? err : new Error(String(err));
    }
    this.notify();
  }
}
