import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { HostResolver, WebhookSender } from '../application/ports';
import { checkTarget, type AllowList } from '../domain/address-policy';
import { resultFromResponse, truncateError, type AttemptResult } from '../domain/attempt-result';
import { describeDuration } from '../domain/retry-schedule';

export interface WebhookSenderOptions {
  resolver: HostResolver;
  allowList: AllowList;
  /** One deadline for the whole attempt: DNS, connect, TLS, request, answer. */
  timeoutMs: number;
  /** At most this much of the answer is read; the connection is closed after it. */
  maxResponseBytes: number;
}

/**
 * POSTs to receivers with the SSRF rules applied where they cannot be bypassed: the host is resolved here, every
 * address checked (address-policy.ts), and the socket connects to the address that passed, through a lookup that
 * answers only that address, so nothing resolves the name a second time (DNS rebinding). TLS still verifies the
 * certificate against the host name. No redirects are followed (http.request never does; a 3xx is a failure), no
 * connection is reused (agent: false), and no proxy from the environment applies.
 */
export function createWebhookSender(options: WebhookSenderOptions): WebhookSender {
  const timeoutText = `timed out after ${describeDuration(options.timeoutMs)}`;
  return {
    async send({ target, headers, body, signal }) {
      const started = performance.now();
      const latency = () => Math.round(performance.now() - started);
      const timeout = AbortSignal.timeout(options.timeoutMs);
      const deadline = AbortSignal.any([signal, timeout]);
      const fail = (error: string): AttemptResult => ({
        ok: false,
        statusCode: 0,
        latencyMs: latency(),
        error: truncateError(error),
      });

      let addresses: string[];
      if (target.literal) {
        addresses = [target.host];
      } else {
        try {
          addresses = await untilAborted(options.resolver.resolve(target.host), deadline);
        } catch (err) {
          if (timeout.aborted) return fail(`${timeoutText} (DNS lookup of ${target.host})`);
          return fail(`DNS lookup of ${target.host} failed: ${errorText(err)}`);
        }
        if (addresses.length === 0) return fail(`${target.host} does not resolve`);
      }
      const check = checkTarget(options.allowList, target.host, addresses);
      if ('refused' in check) return fail(`refused: ${check.refused}`);

      const pinned: LookupFunction = (_host, lookupOptions, callback) => {
        if (lookupOptions.all) callback(null, [{ address: check.address, family: check.family }]);
        else callback(null, check.address, check.family);
      };
      return new Promise<AttemptResult>((resolve) => {
        let settled = false;
        const settle = (result: AttemptResult) => {
          if (settled) return;
          settled = true;
          resolve(result);
        };
        const request = (target.protocol === 'https:' ? https : http).request({
          protocol: target.protocol,
          hostname: target.host,
          port: target.port,
          path: target.path,
          method: 'POST',
          headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
          lookup: pinned,
          agent: false,
          signal: deadline,
        });
        request.on('response', (response) => {
          const status = response.statusCode ?? 0;
          const chunks: Buffer[] = [];
          let size = 0;
          const done = () => {
            settle(resultFromResponse(status, Buffer.concat(chunks).toString('utf8'), latency()));
            response.destroy();
          };
          response.on('data', (chunk: Buffer) => {
            const room = options.maxResponseBytes - size;
            if (room > 0) chunks.push(chunk.subarray(0, room));
            size += chunk.length;
            if (size >= options.maxResponseBytes) done();
          });
          response.on('end', done);
          // Cut mid-answer: the status is what counts (a 2xx whose body broke off is still a success).
          response.on('error', done);
          response.on('close', done);
        });
        request.on('error', (err) => {
          if (timeout.aborted) settle(fail(timeoutText));
          else if (signal.aborted) settle(fail('aborted: the dispatcher is shutting down'));
          else settle(fail(describeRequestError(err, `${check.address}:${target.port}`)));
        });
        request.end(body);
      });
    },
  };
}

/** Rejects when `signal` aborts first (a DNS lookup cannot be cancelled, only stopped waiting for). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}

const errorText = (err: unknown): string => {
  const e = err as NodeJS.ErrnoException;
  return e?.code
    ? `${e.code}${e.message && !e.message.includes(e.code) ? ` (${e.message})` : ''}`
    : String(e?.message ?? err);
};

/** Our words for what went wrong on the way; the log of the delivery shows it to the project's admins. */
function describeRequestError(err: unknown, address: string): string {
  const code = (err as NodeJS.ErrnoException).code ?? '';
  switch (code) {
    case 'ECONNREFUSED':
      return `connection refused by ${address}`;
    case 'ECONNRESET':
      return `connection reset by ${address}`;
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `${address} is unreachable`;
    case 'ETIMEDOUT':
      return `connection to ${address} timed out`;
    default:
      if (/CERT|TLS|SSL/.test(code)) return `TLS: ${(err as Error).message}`;
      return errorText(err);
  }
}
