/**
 * The board page's script (board-page.ts serves it as `/board/board.js`): plain browser JavaScript kept in a string,
 * so the build ships it inside the gateway's own code (no file to copy) and the page's CSP needs no inline code.
 * No template literal inside (this is one), and every text from the API goes in by `textContent`, never as HTML.
 *
 * What it does: reads the board (phases with their stories) after taking the stream's head position, so nothing
 * falls between the read and the stream; then applies the stream's story events as they come (a story event
 * carries the whole story: the card is put in its phase's column, or removed). Reconnects are the browser's own
 * (EventSource sends `Last-Event-ID` by itself); when the browser gives up (the server refused: a gateway that is
 * starting answers 503), the script asks why with a long-poll from its last position: 410 (history gone) → read the
 * board again and stream from that new read's head; 401/403/404 → stop; anything else → try again in a while.
 */
export const BOARD_SCRIPT = String.raw`'use strict';
(() => {
  const RETRY_MS = 3000; // as the stream's own retry: delay
  const KEY_ITEM = 'flowboard.apikey';
  const STORY_EVENTS = [
    'story.created',
    'story.updated',
    'story.moved',
    'story.blocked',
    'story.unblocked',
    'story.deleted',
  ];
  const PHASE_EVENTS = ['phase.created', 'phase.updated', 'phase.deleted'];
  const STATUS_TEXT = {
    loading: 'Loading…',
    live: 'Live',
    reconnecting: 'Reconnecting…',
    stopped: 'Disconnected',
  };

  const $ = (id) => document.getElementById(id);
  const boardEl = $('board');
  const statusEl = $('status');
  const problemEl = $('problem');
  const titleEl = $('title');
  const form = $('connect');

  let projectId = new URLSearchParams(location.search).get('project');
  let key = takeKey();
  let source = null; // the open EventSource, if any
  let lastId = null; // the position of the last event taken: where a new stream resumes
  let timer = null;
  let epoch = 0; // each (re)start takes a new one; an older one's pending work is dropped
  const columns = new Map(); // phase id → its card list
  const cards = new Map(); // story id → its card

  // The key reaches the server only in headers, except on the stream's URL (EventSource cannot send headers). It
  // comes in the URL's fragment (#apikey=…, which browsers never send to a server), or from the form; it is kept
  // in sessionStorage (this tab only, gone when it closes) and taken out of the address bar at once, so it is in
  // no history entry, bookmark or shared link.
  function takeKey() {
    const given = new URLSearchParams(location.hash.slice(1)).get('apikey');
    if (given) {
      sessionStorage.setItem(KEY_ITEM, given);
      history.replaceState(null, '', location.pathname + location.search);
    }
    return sessionStorage.getItem(KEY_ITEM);
  }

  // ---- the page ------------------------------------------------------------------------------------------------

  function status(state) {
    statusEl.dataset.state = state;
    statusEl.textContent = STATUS_TEXT[state];
  }

  function element(tag, className, text) {
    const node = document.createElement(tag);
    node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function render(project, phases) {
    titleEl.textContent = project.name;
    document.title = project.name + ' · Flowboard';
    columns.clear();
    cards.clear();
    const sections = phases
      .slice()
      .sort((a, b) => a.index - b.index)
      .map((phase) => {
        const section = element('section', 'column');
        section.dataset.phaseId = String(phase.id);
        const list = element('ol', 'cards');
        section.append(element('h2', 'column-name', phase.name), list);
        columns.set(phase.id, list);
        for (const story of phase.stories || []) list.append(cardOf(story));
        return section;
      });
    boardEl.replaceChildren(...sections);
  }

  function cardOf(story) {
    let card = cards.get(story.id);
    if (!card) {
      card = element('li', 'card');
      card.dataset.storyId = String(story.id);
      cards.set(story.id, card);
    }
    card.dataset.color = story.color || 'grey';
    card.dataset.status = story.status || '';
    const parts = [element('span', 'card-id', '#' + story.id), element('p', 'card-text', story.text)];
    if (story.owner) parts.push(element('span', 'card-owner', story.owner.name || story.owner.userName || ''));
    if (story.status === 'blocked') {
      parts.push(element('span', 'card-blocked', 'Blocked' + (story.blockedReason ? ': ' + story.blockedReason : '')));
    }
    card.replaceChildren(...parts);
    return card;
  }

  /** One story event: the payload's data is the story as the API shows it (before its deletion, for a delete). */
  function apply(type, story) {
    if (type === 'story.deleted') {
      const card = cards.get(story.id);
      if (card) card.remove();
      cards.delete(story.id);
      return;
    }
    const list = story.phase && columns.get(story.phase.id);
    if (!list) return resync(); // a phase this page does not show yet: read the board again
    const card = cardOf(story);
    if (card.parentElement !== list) list.append(card);
  }

  /** The key, or its access to the project, is not (or no longer) good: ask for another. */
  function stop(message) {
    epoch++;
    closeStream();
    clearTimeout(timer);
    sessionStorage.removeItem(KEY_ITEM);
    status('stopped');
    problemEl.textContent = message;
    problemEl.hidden = false;
    showForm();
  }

  function showForm() {
    if (projectId) form.elements.project.value = projectId;
    form.hidden = false;
  }

  // ---- the API -------------------------------------------------------------------------------------------------

  class Refused extends Error {
    constructor(status, message) {
      super(message);
      this.status = status;
    }
  }

  const FINAL = [401, 403, 404]; // answers that retrying will not change: stop()

  function call(path) {
    return fetch('/api/v1/projects/' + encodeURIComponent(projectId) + path, {
      headers: { 'X-Zen-ApiKey': key, Accept: 'application/json' },
      cache: 'no-store',
    });
  }

  async function problemOf(res) {
    try {
      const body = await res.json();
      return body.detail || body.title || 'HTTP ' + res.status;
    } catch {
      return 'HTTP ' + res.status;
    }
  }

  async function read(path) {
    const res = await call(path);
    if (!res.ok) throw new Refused(res.status, await problemOf(res));
    return res.json();
  }

  async function readBoard() {
    const phases = [];
    for (let page = 1; ; page++) {
      const answer = await read('/phases?with=stories&pageSize=1000&page=' + page);
      phases.push(...answer.items);
      if (page >= answer.totalPages) break;
    }
    return phases;
  }

  // ---- the stream ----------------------------------------------------------------------------------------------

  function closeStream() {
    if (source) source.close();
    source = null;
  }

  function later(step, delayMs = RETRY_MS) {
    clearTimeout(timer);
    timer = setTimeout(step, delayMs);
  }

  /** The answer's Retry-After (503: a gateway starting; 429: too many streams), else the usual delay. */
  function retryAfter(res) {
    const seconds = Number(res.headers.get('Retry-After'));
    return seconds > 0 ? seconds * 1000 : RETRY_MS;
  }

  /** (Re)reads the board and streams from the position taken just before the read. */
  async function resync() {
    const mine = ++epoch;
    closeStream();
    clearTimeout(timer);
    status('loading');
    try {
      const head = (await read('/events?from=now&wait=0')).position;
      const [project, phases] = await Promise.all([read(''), readBoard()]);
      if (mine !== epoch) return;
      render(project, phases);
      listen(head);
    } catch (error) {
      if (mine !== epoch) return;
      if (error instanceof Refused && FINAL.includes(error.status)) return stop(error.message);
      status('reconnecting');
      later(resync);
    }
  }

  function resyncSoon() {
    clearTimeout(timer);
    timer = setTimeout(resync, 100);
  }

  function listen(after) {
    lastId = after;
    const url =
      '/api/v1/projects/' + encodeURIComponent(projectId) + '/events?after=' + encodeURIComponent(after) +
      '&apikey=' + encodeURIComponent(key);
    const stream = new EventSource(url);
    source = stream;
    stream.onopen = () => status('live');
    stream.onerror = () => {
      if (stream !== source) return;
      if (stream.readyState === EventSource.CONNECTING) return status('reconnecting'); // the browser retries
      source = null;
      recover(); // the browser gave up: the server refused the stream
    };
    const take = (handle) => (event) => {
      if (stream !== source) return;
      if (event.lastEventId) lastId = event.lastEventId;
      handle(event);
    };
    for (const type of STORY_EVENTS) {
      stream.addEventListener(type, take((event) => apply(type, JSON.parse(event.data).data)));
    }
    // The columns changed (one write may move several: one event each): read the board again, once for them all.
    for (const type of PHASE_EVENTS) stream.addEventListener(type, take(() => resyncSoon()));
    // closed (slow, shutdown): the response ends and the browser reconnects from its id by itself.
    stream.addEventListener('closed', take(() => status('reconnecting')));
    stream.addEventListener('gone', take(() => resync()));
    stream.addEventListener('revoked', take((event) => stop(JSON.parse(event.data).detail)));
  }

  /** Why the server refused the stream, asked with a long-poll from the last position; then what to do. */
  async function recover() {
    const mine = ++epoch;
    status('reconnecting');
    let res;
    try {
      res = await call('/events?wait=0&after=' + encodeURIComponent(lastId));
    } catch {
      if (mine === epoch) later(recover); // the server is not reachable
      return;
    }
    if (mine !== epoch) return;
    if (res.ok) return listen(lastId);
    // 410: the history after our position is gone; 400: the position is no longer one of the project's.
    if (res.status === 410 || res.status === 400) return resync();
    if (FINAL.includes(res.status)) return stop(await problemOf(res));
    later(recover, retryAfter(res)); // 429, 503, another 5xx
  }

  // ---- start ---------------------------------------------------------------------------------------------------

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    projectId = form.elements.project.value.trim();
    key = form.elements.apikey.value.trim();
    sessionStorage.setItem(KEY_ITEM, key);
    form.elements.apikey.value = '';
    history.replaceState(null, '', location.pathname + '?project=' + encodeURIComponent(projectId));
    form.hidden = true;
    problemEl.hidden = true;
    resync();
  });

  if (projectId && /^[0-9]+$/.test(projectId) && key) {
    resync();
  } else {
    showForm();
  }
})();
`;
