import vm from 'node:vm';
import express, { type Request, type Response } from 'express';
import { BOARD_CSP, boardPage } from './board-page';
import { BOARD_SCRIPT } from './board-page.script';
import { describeRequest } from './record';
import { Router } from '../api/router';

// ---- the handler --------------------------------------------------------------------------------------------------

/** What the handler answers for a request, or `next` when it lets the request go on. */
function serve(method: string, url: string) {
  const req = Object.assign(Object.create(express.request) as Request, { method, url, headers: {} });
  describeRequest(req, { requestId: 'r1' }, new Router([]));
  const headers: Record<string, string | number> = {};
  const answer = { status: 0, headers, body: '', next: false };
  const res = {
    status(code: number) {
      answer.status = code;
      return this;
    },
    setHeader(name: string, value: string | number) {
      headers[name.toLowerCase()] = value;
    },
    end(body: string) {
      answer.body = body;
    },
  } as unknown as Response;
  boardPage()(req, res, () => {
    answer.next = true;
  });
  return answer;
}

describe('boardPage: the page and its files', () => {
  it('serves the page under a strict CSP: scripts and styles from this origin only, no inline code', () => {
    const page = serve('GET', '/board?project=12');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['content-security-policy']).toBe(BOARD_CSP);
    expect(BOARD_CSP).toContain("script-src 'self'");
    expect(BOARD_CSP).toContain("connect-src 'self'");
    expect(BOARD_CSP).not.toContain('unsafe');
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    expect(page.headers['content-length']).toBe(Buffer.byteLength(page.body));
    // Every script is a file, and no element has a style attribute (the CSP would block both).
    expect(page.body.match(/<script[^>]*>/g)).toEqual(['<script src="/board/board.js" defer>']);
    expect(page.body).not.toMatch(/\sstyle=/);
    expect(page.body).toContain('href="/board/board.css"');
  });

  it('serves the script and the style sheet in their types; the script parses', () => {
    const script = serve('GET', '/board/board.js');
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(() => new vm.Script(script.body)).not.toThrow();
    expect(script.body).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write/);
    expect(serve('GET', '/board/board.css').headers['content-type']).toBe('text/css; charset=utf-8');
  });

  it('answers HEAD and a trailing slash; leaves other paths and methods to the API', () => {
    expect(serve('HEAD', '/board').status).toBe(200);
    expect(serve('GET', '/board/').status).toBe(200);
    for (const [method, url] of [
      ['POST', '/board'],
      ['GET', '/board/other.js'],
      ['GET', '/boards'],
      ['GET', '/api/v1/projects/1'],
    ] as const) {
      expect(serve(method, url).next).toBe(true);
    }
  });
});

// ---- the script, in a small stand-in for the browser --------------------------------------------------------------

/** Just what the script uses of a DOM element. */
class FakeElement {
  className = '';
  hidden = false;
  dataset: Record<string, string> = {};
  children: FakeElement[] = [];
  parentElement: FakeElement | null = null;
  elements: Record<string, { value: string }> = { project: { value: '' }, apikey: { value: '' } };
  listeners: Record<string, (event: unknown) => void> = {};
  private text = '';
  constructor(readonly tagName: string) {}
  get textContent(): string {
    return this.text + this.children.map((c) => c.textContent).join('');
  }
  set textContent(value: string) {
    this.replaceChildren();
    this.text = String(value);
  }
  append(...nodes: FakeElement[]) {
    for (const node of nodes) {
      node.remove();
      node.parentElement = this;
      this.children.push(node);
    }
  }
  replaceChildren(...nodes: FakeElement[]) {
    for (const child of [...this.children]) child.remove();
    this.text = '';
    this.append(...nodes);
  }
  remove() {
    const parent = this.parentElement;
    if (parent) parent.children = parent.children.filter((c) => c !== this);
    this.parentElement = null;
  }
  addEventListener(type: string, listener: (event: unknown) => void) {
    this.listeners[type] = listener;
  }
}

class FakeEventSource {
  static CONNECTING = 0;
  static OPEN = 1;
  static CLOSED = 2;
  static opened: FakeEventSource[] = [];
  readyState = FakeEventSource.CONNECTING;
  onopen: (() => void) | null = null;
  onerror: (() => void) | null = null;
  listeners = new Map<string, (event: unknown) => void>();
  constructor(readonly url: string) {
    FakeEventSource.opened.push(this);
  }
  addEventListener(type: string, listener: (event: unknown) => void) {
    this.listeners.set(type, listener);
  }
  close() {
    this.readyState = FakeEventSource.CLOSED;
  }
  open() {
    this.readyState = FakeEventSource.OPEN;
    this.onopen?.();
  }
  emit(type: string, id: string, data: unknown) {
    this.listeners.get(type)?.({ data: JSON.stringify(data), lastEventId: id });
  }
  /** The browser gave up on it (the server refused it). */
  refused() {
    this.readyState = FakeEventSource.CLOSED;
    this.onerror?.();
  }
}

type Answer = { status: number; body?: unknown; retryAfter?: string };
type Calls = Array<{ url: string; headers: Record<string, string> }>;

const phase = (id: number, index: number, stories: object[] = []) => ({
  id,
  name: `Phase ${id}`,
  index,
  stories,
});
const story = (id: number, phaseId: number, text = `Story ${id}`) => ({ id, text, phase: { id: phaseId } });

/** Runs the page's script against a board; `answers` maps a path (after the project's) to the API's answers. */
function browser(pageUrl: string, answers: (path: string) => Answer) {
  const ids = ['board', 'status', 'problem', 'title', 'connect'];
  const elements = new Map(ids.map((id) => [id, new FakeElement(id === 'connect' ? 'form' : 'div')]));
  const url = new URL(pageUrl, 'http://gw.test');
  const location = { pathname: url.pathname, search: url.search, hash: url.hash };
  const storage = new Map<string, string>();
  const calls: Calls = [];
  FakeEventSource.opened = [];
  const context = {
    document: {
      title: '',
      getElementById: (id: string) => elements.get(id),
      createElement: (tag: string) => new FakeElement(tag),
    },
    location,
    history: {
      replaceState(_state: unknown, _title: string, next: string) {
        const to = new URL(next, 'http://gw.test');
        Object.assign(location, { pathname: to.pathname, search: to.search, hash: to.hash });
      },
    },
    sessionStorage: {
      getItem: (name: string) => storage.get(name) ?? null,
      setItem: (name: string, value: string) => storage.set(name, value),
      removeItem: (name: string) => storage.delete(name),
    },
    async fetch(target: string, init: { headers: Record<string, string> }) {
      calls.push({ url: target, headers: init.headers });
      const answer = answers(target.replace(/^\/api\/v1\/projects\/\d+/, ''));
      return {
        ok: answer.status === 200,
        status: answer.status,
        headers: { get: (name: string) => (name === 'Retry-After' ? (answer.retryAfter ?? null) : null) },
        json: async () => answer.body,
      };
    },
    EventSource: FakeEventSource,
    URLSearchParams,
    setTimeout,
    clearTimeout,
  };
  vm.runInNewContext(BOARD_SCRIPT, context);
  const columnOf = (storyId: number) => {
    for (const column of elements.get('board')!.children) {
      const cards = column.children[1]!.children;
      if (cards.some((c) => c.dataset.storyId === String(storyId))) return Number(column.dataset.phaseId);
    }
    return undefined;
  };
  return {
    calls,
    storage,
    location,
    element: (id: string) => elements.get(id)!,
    columns: () => elements.get('board')!.children.map((c) => Number(c.dataset.phaseId)),
    columnOf,
    stream: () => FakeEventSource.opened[FakeEventSource.opened.length - 1]!,
  };
}

/** Lets the script's pending promises run. */
const settle = async () => {
  for (let i = 0; i < 10; i++) await new Promise((resolve) => setImmediate(resolve));
};

/** A board of three phases (given out of order) and two stories; the stream's head moves on with each read. */
function boardAnswers(overrides: (path: string) => Answer | undefined = () => undefined) {
  let head = 0;
  return (path: string): Answer => {
    const special = overrides(path);
    if (special) return special;
    if (path.startsWith('/events?from=now'))
      return { status: 200, body: { events: [], position: `h${++head}` } };
    if (path.startsWith('/events?')) return { status: 200, body: { events: [], position: 'p' } };
    if (path === '') return { status: 200, body: { id: 7, name: 'Seven' } };
    if (path.startsWith('/phases?'))
      return {
        status: 200,
        body: {
          page: 1,
          totalPages: 1,
          items: [phase(30, 2), phase(10, 0, [story(1, 10), story(2, 10)]), phase(20, 1)],
        },
      };
    return { status: 404, body: { detail: 'no such thing' } };
  };
}

describe('the board script', () => {
  beforeEach(() => jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] }));
  afterEach(() => jest.useRealTimers());

  it('takes the key from the fragment into sessionStorage, off the address bar; sends it in a header, and in the URL only to the stream', async () => {
    const page = browser('/board?project=7#apikey=k-123', boardAnswers());
    await settle();
    expect(page.location.hash).toBe('');
    expect(page.storage.get('flowboard.apikey')).toBe('k-123');
    expect(page.calls.length).toBeGreaterThan(0);
    for (const call of page.calls) {
      expect(call.headers['X-Zen-ApiKey']).toBe('k-123');
      expect(call.url).not.toContain('k-123');
    }
    // The stream starts at the head taken before the board was read, so no change falls in between.
    expect(page.calls[0]!.url).toBe('/api/v1/projects/7/events?from=now&wait=0');
    expect(page.stream().url).toBe('/api/v1/projects/7/events?after=h1&apikey=k-123');
  });

  it('shows the phases in their order with their cards, and applies story events as they come', async () => {
    const page = browser('/board?project=7#apikey=k', boardAnswers());
    await settle();
    expect(page.columns()).toEqual([10, 20, 30]);
    expect(page.element('title').textContent).toBe('Seven');
    const stream = page.stream();
    stream.open();
    expect(page.element('status').dataset.state).toBe('live');

    stream.emit('story.moved', 'e1', { type: 'story.moved', data: story(1, 20) });
    expect(page.columnOf(1)).toBe(20);
    stream.emit('story.created', 'e2', { type: 'story.created', data: story(3, 10, '<b>not bold</b>') });
    expect(page.columnOf(3)).toBe(10);
    expect(page.element('board').textContent).toContain('<b>not bold</b>'); // as text, not markup
    stream.emit('story.blocked', 'e3', {
      type: 'story.blocked',
      data: { ...story(2, 10), status: 'blocked', blockedReason: 'Termites' },
    });
    expect(page.element('board').textContent).toContain('Blocked: Termites');
    stream.emit('story.deleted', 'e4', { type: 'story.deleted', data: story(1, 20) });
    expect(page.columnOf(1)).toBeUndefined();
    expect(FakeEventSource.opened).toHaveLength(1);

    // A phase the page does not know: the board is read again, and streamed from that read's head.
    stream.emit('story.moved', 'e5', { type: 'story.moved', data: story(2, 99) });
    await settle();
    expect(stream.readyState).toBe(FakeEventSource.CLOSED);
    expect(page.stream().url).toBe('/api/v1/projects/7/events?after=h2&apikey=k');
  });

  it('when the browser gives up on a refused stream, retries from its last position until the server takes it', async () => {
    let starting = true;
    const page = browser(
      '/board?project=7#apikey=k',
      boardAnswers((path) =>
        starting && path.startsWith('/events?wait=0') ? { status: 503, retryAfter: '2' } : undefined,
      ),
    );
    await settle();
    const first = page.stream();
    first.open();
    first.emit('story.updated', 'e9', { type: 'story.updated', data: story(2, 10, 'new text') });

    first.refused(); // e.g. a restarted gateway answering 503 until its feed has caught up
    await settle();
    expect(page.element('status').dataset.state).toBe('reconnecting');
    expect(page.calls[page.calls.length - 1]!.url).toBe('/api/v1/projects/7/events?wait=0&after=e9');
    expect(FakeEventSource.opened).toHaveLength(1);

    starting = false;
    jest.advanceTimersByTime(1999);
    await settle();
    expect(FakeEventSource.opened).toHaveLength(1);
    jest.advanceTimersByTime(1); // the answer's Retry-After: 2 s
    await settle();
    expect(page.calls.filter((c) => c.url.includes('wait=0&after=e9'))).toHaveLength(2);
    await settle();
    expect(FakeEventSource.opened).toHaveLength(2);
    expect(page.stream().url).toBe('/api/v1/projects/7/events?after=e9&apikey=k');
  });

  it('on 410 (history gone) reads the board again and streams from now', async () => {
    const page = browser(
      '/board?project=7#apikey=k',
      boardAnswers((path) => (path.startsWith('/events?wait=0') ? { status: 410 } : undefined)),
    );
    await settle();
    page.stream().refused();
    await settle();
    const reads = page.calls.filter((c) => c.url.includes('/phases?')).length;
    expect(reads).toBe(2);
    expect(page.stream().url).toBe('/api/v1/projects/7/events?after=h2&apikey=k');
  });

  it('stops on a key that is refused: shows why, forgets the key, asks for another', async () => {
    const page = browser(
      '/board?project=7#apikey=bad',
      boardAnswers(() => ({ status: 401, body: { detail: 'The API key is not valid.' } })),
    );
    await settle();
    expect(page.element('status').dataset.state).toBe('stopped');
    expect(page.element('problem').textContent).toBe('The API key is not valid.');
    expect(page.element('connect').hidden).toBe(false);
    expect(page.storage.has('flowboard.apikey')).toBe(false);
    expect(FakeEventSource.opened).toHaveLength(0);
  });

  it('without a key asks for one, and opens the board from the form', async () => {
    const page = browser('/board?project=7', boardAnswers());
    await settle();
    const form = page.element('connect');
    expect(form.hidden).toBe(false);
    expect(form.elements.project!.value).toBe('7');
    form.elements.apikey!.value = 'typed';
    form.listeners.submit!({ preventDefault() {} });
    await settle();
    expect(form.hidden).toBe(true);
    expect(form.elements.apikey!.value).toBe('');
    expect(page.stream().url).toBe('/api/v1/projects/7/events?after=h1&apikey=typed');
  });
});
