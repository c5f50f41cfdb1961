import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { RequestHandler, Response } from 'express';
import { openApiDocument } from '../api/openapi/document';
import { pageCsp } from './page-csp';
import { recordOf } from './record';

/**
 * The contract and its reference page, outside the API's route table and without an API key:
 * `GET /api/v1/openapi.json` (the OpenAPI 3.1 document) and `GET /docs` (Swagger UI from the swagger-ui-dist
 * package, no CDN). The page runs under a strict CSP: scripts and styles only from this origin, no inline code.
 */
export const OPENAPI_PATH = '/api/v1/openapi.json';
export const DOCS_PATH = '/docs';

const CSP = pageCsp({ img: "'self' data:", fonts: true });

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Flowboard API reference</title>
    <link rel="icon" type="image/png" href="${DOCS_PATH}/favicon-32x32.png" />
    <link rel="stylesheet" href="${DOCS_PATH}/swagger-ui.css" />
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="${DOCS_PATH}/swagger-ui-bundle.js"></script>
    <script src="${DOCS_PATH}/init.js"></script>
  </body>
</html>
`;

// In a file of its own, so the CSP needs no 'unsafe-inline'.
const INIT = `window.ui = SwaggerUIBundle({
  url: new URL(${JSON.stringify(OPENAPI_PATH)}, window.location.href).href,
  dom_id: '#swagger-ui',
  deepLinking: true,
  presets: [SwaggerUIBundle.presets.apis],
  layout: 'BaseLayout',
});
`;

/** The renderer's files we serve, by request name (nothing else from node_modules is reachable). */
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

type Asset = { type: string; body: Buffer | string; cache: string };

export function docs(): RequestHandler {
  let documentJson: string | undefined;
  const assets = new Map<string, Asset>();
  const asset = (name: string): Asset | undefined => {
    const type = ASSETS[name];
    if (!type) return undefined;
    let found = assets.get(name);
    if (!found) {
      const dir = path.dirname(require.resolve('swagger-ui-dist/package.json'));
      found = { type, body: readFileSync(path.join(dir, name)), cache: 'public, max-age=3600' };
      assets.set(name, found);
    }
    return found;
  };

  return (req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    const { path: target, suffix } = recordOf(req).target;
    if (target === '/api/v1/openapi' && suffix !== 'xml') {
      documentJson ??= JSON.stringify(openApiDocument());
      return send(res, { type: 'application/json; charset=utf-8', body: documentJson, cache: 'no-cache' });
    }
    if (target === DOCS_PATH) {
      res.setHeader('Content-Security-Policy', CSP);
      return send(res, { type: 'text/html; charset=utf-8', body: PAGE, cache: 'no-cache' });
    }
    if (target === `${DOCS_PATH}/init.js`) {
      return send(res, { type: 'text/javascript; charset=utf-8', body: INIT, cache: 'no-cache' });
    }
    const file = target.startsWith(`${DOCS_PATH}/`) ? asset(target.slice(DOCS_PATH.length + 1)) : undefined;
    if (file) return send(res, file);
    next();
  };
}

function send(res: Response, asset: Asset): void {
  res.status(200);
  res.setHeader('Content-Type', asset.type);
  res.setHeader('Cache-Control', asset.cache);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Content-Length', Buffer.byteLength(asset.body));
  res.end(asset.body);
}
