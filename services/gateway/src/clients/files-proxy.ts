import { API_KEY_ID_KEY, API_KEY_NAME_KEY, type ApiKeyRef } from '@flowboard/service-kit';
import http, { type ClientRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import {
  type Breaker,
  DomainError,
  ERROR_TABLE,
  injectTraceContext,
  isProblemSlug,
  type ErrorKind,
} from '@flowboard/service-kit';
import { createProxyMiddleware, type Plugin } from 'http-proxy-middleware';
import { handled, type Reply } from '../wire/respond';

/** Decides what the caller gets once the files service has answered (headers received, body unread). */
export type UpstreamHandler = (upstream: IncomingMessage) => Promise<Reply>;

/** Who is calling, set by the gateway as trusted headers on the internal call. */
export interface ForwardIdentity {
  userId: number;
  /** The caller's API key, which the upload's change event names (README "Scoped API keys"). */
  apiKey?: ApiKeyRef;
  requestId: string;
  /** Uploads: the project's account and its storage limit, for the files quota. */
  account?: { accountId: number; storageLimitBytes: number };
}

/** Something that watches the request body go by as the proxy sends it (an Idempotency-Key's digest). */
export interface BodyWatch {
  watch(body: IncomingMessage): void;
}

interface Pending extends ForwardIdentity {
  bodyWatch?: BodyWatch;
  /** The request's trace context (`traceparent`...), taken where the forward starts: proxy events may not run there. */
  trace: Record<string, string>;
  onResponse: UpstreamHandler;
  resolve(reply: Reply): void;
  reject(error: unknown): void;
  /** The call to files, once sent; until files answers, a breaker opening cuts it (see createFilesProxy). */
  proxyReq?: ClientRequest;
  answered?: boolean;
}

/**
 * Caller headers that may reach the files service; credentials, cookies and everything else stay behind.
 * `range` serves partial downloads (files ignores it on uploads).
 */
const FORWARDED_HEADERS = new Set(['host', 'content-type', 'content-length', 'transfer-encoding', 'range']);

// Uploads and downloads stream, so the timeout is for silence on the upstream socket, not the whole transfer.
const UPSTREAM_IDLE_TIMEOUT_MS = 120_000;

/**
 * Streams requests to and responses from the files service's internal HTTP port (http-proxy-middleware); the
 * gateway never buffers an upload or a download. Each forward resolves to the Reply its handler builds from the
 * upstream response, so proxied calls end in the same respond/error path as every other route.
 */
export function createFilesProxy(filesHttpUrl: string, breaker?: Breaker) {
  const pending = new WeakMap<IncomingMessage, Pending>();
  /** Forwards still waiting for files' answer: when files is found down they fail at once, not after 120 s. */
  const waiting = new Set<Pending>();
  breaker?.onStateChange((state) => {
    if (state !== 'open') return;
    for (const p of waiting) {
      p.reject(breaker.unavailable());
      p.proxyReq?.destroy();
    }
    waiting.clear();
  });

  const plugin: Plugin = (proxyServer) => {
    proxyServer.on('proxyReq', (proxyReq, req) => {
      const p = pending.get(req);
      for (const name of proxyReq.getHeaderNames())
        if (!FORWARDED_HEADERS.has(name)) proxyReq.removeHeader(name);
      if (p) {
        p.proxyReq = proxyReq;
        // files may answer before the body has all arrived (a 402 at once) and then close the connection: the
        // rest is still read here, into nothing, so the caller's request ends (its connection is usable again) and
        // an Idempotency-Key's digest, and with it the kept answer, completes.
        proxyReq.once('close', () => {
          if (p.answered && !req.readableEnded && !req.destroyed) {
            req.unpipe(proxyReq);
            req.resume();
          }
        });
        // Before the first chunk goes (headers can still be set, so none has): the watch sees every chunk.
        p.bodyWatch?.watch(req);
        proxyReq.setHeader('x-flowboard-user-id', String(p.userId));
        if (p.apiKey) {
          // As in gRPC metadata: the id, and the name percent-encoded (header values are ASCII).
          proxyReq.setHeader(API_KEY_ID_KEY, String(p.apiKey.id));
          proxyReq.setHeader(API_KEY_NAME_KEY, encodeURIComponent(p.apiKey.name));
        }
        proxyReq.setHeader('x-request-id', p.requestId);
        for (const [name, value] of Object.entries(p.trace)) proxyReq.setHeader(name, value);
        // Only ever set here: the caller's own headers of these names were removed above.
        if (p.account) {
          proxyReq.setHeader('x-flowboard-account-id', String(p.account.accountId));
          proxyReq.setHeader('x-flowboard-storage-limit', String(p.account.storageLimitBytes));
        }
      }
    });
    proxyServer.on('proxyRes', (proxyRes, req) => {
      const p = pending.get(req);
      if (!p) return proxyRes.resume();
      p.answered = true;
      waiting.delete(p);
      p.onResponse(proxyRes).then(p.resolve, p.reject);
    });
    const unavailable = (err: Error, req: IncomingMessage) =>
      pending
        .get(req)
        ?.reject(new DomainError('Unavailable', 'The file service is unavailable.', { cause: err }));
    proxyServer.on('error', (err, req) => unavailable(err, req as IncomingMessage));
    // http-proxy reports a reset while the caller is already gone as `econnreset`, not `error`.
    proxyServer.on('econnreset', (err, req) => unavailable(err, req));
  };

  const proxy = createProxyMiddleware<IncomingMessage, ServerResponse>({
    target: filesHttpUrl,
    changeOrigin: true,
    selfHandleResponse: true,
    proxyTimeout: UPSTREAM_IDLE_TIMEOUT_MS,
    ejectPlugins: true, // no default logger or error page: errors reach our problem renderer
    plugins: [plugin],
  });

  return {
    /**
     * Sends the (unread) request to `path` on the files service with the caller's id and the request id (and an
     * upload's account), and settles with what `onResponse` makes of the answer. The caller's query string is
     * not forwarded. `bodyWatch` sees the body as it is sent.
     */
    forward(
      req: IncomingMessage,
      res: ServerResponse,
      path: string,
      identity: ForwardIdentity,
      onResponse: UpstreamHandler,
      bodyWatch?: BodyWatch,
    ): Promise<Reply> {
      const send = () => forwardOnce(req, res, path, identity, onResponse, bodyWatch);
      // files' own refusals (404, 402...) are answers; only its being out of reach counts against it.
      return breaker ? breaker.run(send, isUnreachable) : send();
    },
  };

  function forwardOnce(
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    identity: ForwardIdentity,
    onResponse: UpstreamHandler,
    bodyWatch?: BodyWatch,
  ): Promise<Reply> {
    return new Promise<Reply>((resolve, reject) => {
      let settled = false;
      const entry: Pending = {
        ...identity,
        ...(bodyWatch ? { bodyWatch } : {}),
        trace: injectTraceContext(),
        onResponse,
        resolve: (reply) => settle(() => resolve(reply)),
        reject: (error) => settle(() => reject(error)),
      };
      const settle = (fn: () => void) => {
        if (settled) return;
        settled = true;
        pending.delete(req);
        waiting.delete(entry);
        fn();
      };
      pending.set(req, entry);
      waiting.add(entry);
      // A caller who hangs up mid-stream ends the call: nothing is left to answer.
      res.once('close', () => settle(() => resolve(handled())));
      req.url = path;
      // The gateway's server has already answered a caller's `Expect: 100-continue` (curl sends it for bodies
      // over 1 MB). Passed on, it would make http-proxy skip `proxyReq`, where the headers are set and filtered.
      delete req.headers.expect;
      proxy(req, res, (err?: unknown) =>
        settle(() => reject(err ?? new Error('files proxy did not proceed'))),
      ).catch((err: unknown) => settle(() => reject(err)));
    });
  }
}

const isUnreachable = (error: unknown): boolean =>
  error instanceof DomainError && (error.kind === 'Unavailable' || error.kind === 'DeadlineExceeded');

/**
 * The files HTTP port's probe: any HTTP answer to a request for nothing (files answers it 4xx) within `timeoutMs`
 * means the process serves; a refused connection or silence fails. One request every `intervalMs`; its verdicts go
 * to `breaker`. Returns the function that stops it.
 */
export function probeFilesHttp(
  filesHttpUrl: string,
  breaker: Breaker,
  options: { intervalMs: number; timeoutMs: number },
): () => void {
  const url = new URL('/internal/probe', filesHttpUrl);
  let timer: NodeJS.Timeout | undefined;
  let running = true;
  const check = () =>
    new Promise<boolean>((resolve) => {
      const req = http.get(url, { agent: false, timeout: options.timeoutMs }, (response) => {
        response.resume();
        resolve(true);
      });
      req.on('timeout', () => req.destroy(new Error('probe timed out')));
      req.on('error', () => resolve(false));
    });
  const loop = async () => {
    if (!running) return;
    breaker.probeResult(await check());
    if (running) timer = setTimeout(() => void loop(), options.intervalMs).unref();
  };
  void loop();
  return () => {
    running = false;
    if (timer) clearTimeout(timer);
  };
}

export type FilesProxy = ReturnType<typeof createFilesProxy>;

/** Reads a small upstream JSON body (the files service's answers and errors), refusing anything large. */
export async function readUpstreamJson(upstream: IncomingMessage, maxBytes = 1_048_576): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of upstream as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) {
      upstream.destroy();
      throw new DomainError('Internal', 'Oversized answer from the file service');
    }
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch (err) {
    throw new DomainError('Internal', 'Unreadable answer from the file service', { cause: err });
  }
}

/**
 * A files error answer `{kind, problem, message}` → the DomainError it stands for. An answer that does not
 * follow the format is an internal error (its status is logged, not shown).
 */
export function filesErrorFrom(status: number, body: unknown): DomainError {
  const b = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const kind = typeof b.kind === 'string' && b.kind in ERROR_TABLE ? (b.kind as ErrorKind) : undefined;
  if (!kind) return new DomainError('Internal', `Unexpected answer from the file service (HTTP ${status})`);
  const problem = isProblemSlug(b.problem) ? b.problem : undefined;
  const message =
    kind === 'Internal'
      ? 'Internal error'
      : typeof b.message === 'string'
        ? b.message
        : ERROR_TABLE[kind].title;
  return new DomainError(kind, message, { problem });
}
