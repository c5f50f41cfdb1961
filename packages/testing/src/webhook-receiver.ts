import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitFor } from './env';

/** One request a receiver got. */
export interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
  /** What the receiver answered. */
  status: number;
}

/**
 * An HTTP receiver for the tests' webhooks: records every request and answers 204, or `failing` while that is set.
 * On 127.0.0.1 by default (the e2e tests; the local stack's `WEBHOOK_ALLOWED_HOSTS` allows loopback), or on the
 * address given (the cluster tests: the pod bridge's address on this host, which the cluster's webhooks may reach).
 */
export class WebhookReceiver {
  readonly received: Received[] = [];
  /** Answer this status instead of 204 while set (a receiver that is down, as far as webhooks can tell). */
  failing: number | undefined;
  private readonly server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const status = this.failing ?? 204;
      this.received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), status });
      res.writeHead(status).end();
    });
  });

  private constructor(private readonly host: string) {}

  static async start(host = '127.0.0.1'): Promise<WebhookReceiver> {
    const receiver = new WebhookReceiver(host);
    await new Promise<void>((resolve) => receiver.server.listen(0, host, resolve));
    return receiver;
  }

  url(path = '/hooks'): string {
    return `http://${this.host}:${(this.server.address() as AddressInfo).port}${path}`;
  }

  /** Requests with this `webhook-id` (retries and redeliveries of one event share it). */
  withId(eventId: string): Received[] {
    return this.received.filter((r) => r.headers['webhook-id'] === eventId);
  }

  /** Waits until `until` holds for what was received and answered 2xx, and returns it. */
  async waitFor<T>(
    until: (delivered: Received[]) => T | undefined,
    what: string,
    timeoutMs = 60_000,
  ): Promise<T> {
    return waitFor(async () => until(this.received.filter((r) => r.status < 300)), timeoutMs, what);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** Standard Webhooks: `v1,` + base64 HMAC-SHA256 of `${id}.${timestamp}.${body}` keyed by the secret's bytes. */
export function signatureOk(secret: string, request: Received): boolean {
  const id = String(request.headers['webhook-id']);
  const timestamp = String(request.headers['webhook-timestamp']);
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${request.body}`).digest('base64');
  return String(request.headers['webhook-signature'])
    .split(' ')
    .some((signature) => signature === `v1,${expected}`);
}
