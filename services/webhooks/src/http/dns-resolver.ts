import { lookup } from 'node:dns/promises';
import type { HostResolver } from '../application/ports';

/** Codes for a name that does not exist (or has no address): an empty answer rather than an error. */
const NO_SUCH_HOST = new Set(['ENOTFOUND', 'ENODATA', 'EAI_NONAME', 'EAI_NODATA']);

/**
 * The system resolver (getaddrinfo: /etc/hosts, then DNS), every address of every family in its order. Only
 * `WebhookSender` and the create-time check use it; the sender then connects to the address it checked.
 */
export const dnsResolver: HostResolver = {
  async resolve(host) {
    try {
      const answers = await lookup(host, { all: true, verbatim: true });
      return answers.map((answer) => answer.address);
    } catch (err) {
      if (NO_SUCH_HOST.has((err as NodeJS.ErrnoException).code ?? '')) return [];
      throw err;
    }
  },
};
