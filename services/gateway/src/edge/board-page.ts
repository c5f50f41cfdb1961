import type { RequestHandler, Response } from 'express';
import { BOARD_SCRIPT } from './board-page.script';
import { pageCsp } from './page-csp';
import { recordOf } from './record';

/**
 * A live board page, beside `/docs` and like it outside the API's route table: `GET /board?project=<id>` shows the
 * project's board read through the API and kept current from its change stream by the browser's own EventSource
 * (the script: board-page.script.ts). The page holds no data and needs no key to load; the key stays in the browser
 * (see the script). Strict CSP: scripts and styles only from this origin, no inline code, no other origin reached.
 */
export const BOARD_PATH = '/board';
export const BOARD_SCRIPT_PATH = `${BOARD_PATH}/board.js`;
export const BOARD_STYLE_PATH = `${BOARD_PATH}/board.css`;

// img: the empty favicon below, so the browser asks for no /favicon.ico. No form action: the key form is handled
// by the script and never submitted.
export const BOARD_CSP = pageCsp({ img: 'data:' });

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Flowboard board</title>
    <link rel="icon" href="data:," />
    <link rel="stylesheet" href="${BOARD_STYLE_PATH}" />
    <script src="${BOARD_SCRIPT_PATH}" defer></script>
  </head>
  <body>
    <header class="bar">
      <h1 id="title">Flowboard board</h1>
      <span id="status" class="status" data-state="idle" role="status" aria-live="polite"></span>
    </header>
    <form id="connect" class="connect" hidden>
      <label>Project id <input name="project" inputmode="numeric" pattern="[0-9]+" required /></label>
      <label>API key <input name="apikey" type="password" autocomplete="off" required /></label>
      <button type="submit">Open the board</button>
    </form>
    <p id="problem" class="problem" role="alert" hidden></p>
    <main id="board" class="board"></main>
  </body>
</html>
`;

const STYLE = `:root { color-scheme: light dark; font-family: system-ui, sans-serif; }
body { margin: 0; }
[hidden] { display: none !important; } /* over the display of the classes below */
.bar { display: flex; align-items: center; gap: 1rem; padding: 0.5rem 1rem; border-bottom: 1px solid #8884; }
.bar h1 { font-size: 1.2rem; margin: 0; }
.status { font-size: 0.85rem; padding: 0.1rem 0.6rem; border-radius: 1rem; background: #8883; }
.status::before { content: '\\25CF  '; }
.status[data-state='live']::before { color: #2a2; }
.status[data-state='loading']::before, .status[data-state='reconnecting']::before { color: #d90; }
.status[data-state='stopped']::before { color: #c33; }
.connect { display: flex; flex-wrap: wrap; gap: 1rem; padding: 1rem; }
.problem { margin: 1rem; color: #c33; }
.board { display: flex; gap: 0.75rem; padding: 1rem; overflow-x: auto; align-items: flex-start; }
.column { flex: 0 0 15rem; background: #8881; border-radius: 0.4rem; padding: 0.5rem; }
.column h2 { font-size: 0.95rem; margin: 0 0 0.5rem; }
.cards { list-style: none; margin: 0; padding: 0; display: flex; flex-direction: column; gap: 0.5rem; min-height: 2rem; }
.card { background: Canvas; border: 1px solid #8884; border-left: 0.35rem solid #999; border-radius: 0.3rem; padding: 0.4rem 0.5rem; }
.card p { margin: 0.2rem 0; overflow-wrap: anywhere; }
.card-id, .card-owner { font-size: 0.75rem; opacity: 0.7; margin-right: 0.5rem; }
.card-blocked { display: block; font-size: 0.8rem; color: #c33; }
.card[data-color='blue'] { border-left-color: #36c; }
.card[data-color='red'] { border-left-color: #c33; }
.card[data-color='green'] { border-left-color: #2a2; }
.card[data-color='orange'] { border-left-color: #e80; }
.card[data-color='yellow'] { border-left-color: #dc0; }
.card[data-color='purple'] { border-left-color: #84c; }
.card[data-color='teal'] { border-left-color: #099; }
`;

type Asset = { type: string; body: string };

const ASSETS: ReadonlyMap<string, Asset> = new Map([
  [BOARD_PATH, { type: 'text/html; charset=utf-8', body: PAGE }],
  [BOARD_SCRIPT_PATH, { type: 'text/javascript; charset=utf-8', body: BOARD_SCRIPT }],
  [BOARD_STYLE_PATH, { type: 'text/css; charset=utf-8', body: STYLE }],
]);

export function boardPage(): RequestHandler {
  return (req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    const asset = ASSETS.get(recordOf(req).target.path);
    if (!asset) return next();
    send(res, asset);
  };
}

function send(res: Response, asset: Asset): void {
  res.status(200);
  res.setHeader('Content-Type', asset.type);
  // no-cache: the page and its script change together with the gateway's release.
  res.setHeader('Cache-Control', 'no-cache');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Content-Security-Policy', BOARD_CSP);
  // The page's own URL carries no key, but no Referer should leave it either.
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('Content-Length', Buffer.byteLength(asset.body));
  res.end(asset.body);
}
