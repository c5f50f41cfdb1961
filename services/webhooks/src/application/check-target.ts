import { DomainError } from '@flowboard/service-kit';
import { checkTarget, type AllowList } from '../domain/address-policy';
import { parseWebhookUrl, type WebhookTarget } from '../domain/webhook-url';
import type { HostResolver } from './ports';

/** A receiver's URL as create and update accept it: well-formed, and its host reaching a public address. */
export type CheckTarget = (url: string) => Promise<WebhookTarget>;

/**
 * Refuses (InvalidArgument) a URL that is not http(s), whose host does not exist, or whose host resolves only to
 * addresses webhooks may not reach (loopback, private...), unless the operator allowed them. A resolver that
 * cannot answer now (a DNS timeout) does not refuse: every attempt checks again anyway, which is the check that
 * matters, since a name may resolve elsewhere later.
 */
export function makeCheckTarget(deps: {
  resolver: HostResolver;
  allowList: AllowList;
  /** A slow resolver must not hold the caller's request: past this, the host counts as not answering. */
  resolveTimeoutMs?: number;
}): CheckTarget {
  const timeoutMs = deps.resolveTimeoutMs ?? 3_000;
  return async (raw) => {
    const target = parseWebhookUrl(raw);
    let addresses: string[];
    if (target.literal) {
      addresses = [target.host];
    } else {
      let timer: NodeJS.Timeout | undefined;
      try {
        addresses = await Promise.race([
          deps.resolver.resolve(target.host),
          new Promise<never>((_resolve, reject) => {
            timer = setTimeout(() => reject(new Error('DNS timeout')), timeoutMs);
          }),
        ]);
      } catch {
        return target;
      } finally {
        clearTimeout(timer);
      }
      if (addresses.length === 0) {
        throw new DomainError('InvalidArgument', `The webhook URL's host ${target.host} does not resolve.`);
      }
    }
    const check = checkTarget(deps.allowList, target.host, addresses);
    if ('refused' in check) {
      throw new DomainError('InvalidArgument', `The webhook URL is not allowed: ${check.refused}.`);
    }
    return target;
  };
}
