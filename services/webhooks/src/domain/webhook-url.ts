import { DomainError } from '@flowboard/service-kit';
import { isAddressLiteral } from './address-policy';

export const MAX_URL_LENGTH = 2000;

/** A receiver's URL, checked for its form. Whether its host may be reached is the address policy's question. */
export interface WebhookTarget {
  /** Normalised (`URL.href`): what is stored and shown. */
  href: string;
  protocol: 'http:' | 'https:';
  /** The host name or address, without IPv6 brackets. */
  host: string;
  port: number;
  /** Path and query, as requested. */
  path: string;
  /** The host is an address; nothing to resolve. */
  literal: boolean;
  /** scheme://host[:port], for messages and logs: a URL's path or query may hold a receiver's token. */
  origin: string;
}

const invalid = (message: string) => new DomainError('InvalidArgument', message);

/** http(s) only, no credentials, at most MAX_URL_LENGTH characters; InvalidArgument otherwise. */
export function parseWebhookUrl(raw: string): WebhookTarget {
  const text = raw.trim();
  if (!text) throw invalid('The webhook URL is required.');
  if (text.length > MAX_URL_LENGTH)
    throw invalid(`The webhook URL is longer than ${MAX_URL_LENGTH} characters.`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw invalid('The webhook URL is not a valid absolute URL.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw invalid(`The webhook URL must use http or https, not ${url.protocol.replace(/:$/, '')}.`);
  }
  if (url.username || url.password) {
    throw invalid('The webhook URL must not contain credentials; receivers verify the signature instead.');
  }
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!host) throw invalid('The webhook URL has no host.');
  return {
    href: url.href,
    protocol: url.protocol,
    host,
    port: url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80,
    path: `${url.pathname}${url.search}`,
    literal: isAddressLiteral(host),
    origin: url.origin,
  };
}
