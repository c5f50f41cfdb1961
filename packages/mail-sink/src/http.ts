// The Mailpit REST subset tests use (axllent/mailpit server/apiv1): list, search, read, delete, health.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { matches, parseQuery, snippet, type Message } from './message';
import type { MessageStore } from './store';

// A list entry: the message without its bodies, plus Mailpit's summary-only fields.
function summary({ Text, HTML: _html, Date: _date, Attachments, ...rest }: Message) {
  return { ...rest, Read: false, Tags: [], Attachments: Attachments.length, Snippet: snippet(Text) };
}

function page(all: Message[], url: URL) {
  const start = Number(url.searchParams.get('start') ?? 0) || 0;
  const limit = Number(url.searchParams.get('limit') ?? 50) || 50;
  const messages = all.slice(start, start + limit).map(summary);
  return {
    total: all.length,
    unread: 0,
    count: messages.length,
    messages_count: all.length,
    start,
    tags: [],
    messages,
  };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const json = typeof body !== 'string';
  res.writeHead(status, { 'Content-Type': json ? 'application/json' : 'text/plain; charset=utf-8' });
  res.end(json ? JSON.stringify(body) : body);
}

async function route(store: MessageStore, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://mail-sink');
  const path = url.pathname.replace(/\/+$/, '') || '/';
  const search = () => {
    const terms = parseQuery(url.searchParams.get('query') ?? '');
    return (m: Message) => matches(m, terms);
  };
  const one = /^\/api\/v1\/message\/([^/]+)$/.exec(path);

  if (req.method === 'GET' && (path === '/livez' || path === '/readyz')) return send(res, 200, 'ok');
  if (req.method === 'GET' && path === '/api/v1/messages') return send(res, 200, page(store.list(), url));
  if (req.method === 'GET' && path === '/api/v1/search')
    return send(res, 200, page(store.list(search()), url));
  if (req.method === 'GET' && one) {
    const msg = store.get(decodeURIComponent(one[1]!));
    return msg ? send(res, 200, msg) : send(res, 404, 'message not found');
  }
  if (req.method === 'DELETE' && path === '/api/v1/messages') {
    const body = (await readBody(req)).trim();
    const ids: unknown = body ? (JSON.parse(body) as { IDs?: unknown }).IDs : undefined;
    if (Array.isArray(ids) && ids.length > 0) store.delete((m) => ids.includes(m.ID));
    else store.delete(() => true); // no body (or no IDs): delete everything, as Mailpit does
    return send(res, 200, 'ok');
  }
  if (req.method === 'DELETE' && path === '/api/v1/search') {
    store.delete(search());
    return send(res, 200, 'ok');
  }
  send(res, 404, 'not found');
}

export function createHttpServer(store: MessageStore): Server {
  return createServer((req, res) => {
    route(store, req, res).catch((err: Error) => send(res, 400, err.message));
  });
}
