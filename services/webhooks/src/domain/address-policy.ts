import ipaddr from 'ipaddr.js';

type Ip = ipaddr.IPv4 | ipaddr.IPv6;

/** The operator's exceptions (WEBHOOK_ALLOWED_HOSTS): host names, and address ranges, webhooks may reach anyway. */
export interface AllowList {
  hosts: ReadonlySet<string>;
  ranges: ReadonlyArray<[Ip, number]>;
}

export const EMPTY_ALLOW_LIST: AllowList = { hosts: new Set(), ranges: [] };

const HOST_NAME = /^(?=.{1,253}$)[a-z0-9_]([a-z0-9_-]{0,62})(\.[a-z0-9_]([a-z0-9_-]{0,62}))*$/;

/** `host.name`, `10.0.0.7`, `10.0.0.0/8`, `::1`, `fd00::/8`; empty entries are skipped. */
export function parseAllowList(entries: readonly string[]): AllowList {
  const hosts = new Set<string>();
  const ranges: Array<[Ip, number]> = [];
  for (const raw of entries) {
    const entry = raw.trim().toLowerCase();
    if (!entry) continue;
    if (entry.includes('/') && ipaddr.isValidCIDR(entry)) {
      const [ip, bits] = ipaddr.parseCIDR(entry);
      ranges.push(
        ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress() && bits >= 96
          ? [(ip as ipaddr.IPv6).toIPv4Address(), bits - 96]
          : [ip, bits],
      );
    } else if (isAddressLiteral(entry)) {
      const ip = unmap(ipaddr.parse(entry));
      ranges.push([ip, ip.kind() === 'ipv4' ? 32 : 128]);
    } else if (HOST_NAME.test(entry.replace(/\.$/, ''))) {
      hosts.add(entry.replace(/\.$/, ''));
    } else {
      throw new Error(`"${raw.trim()}" is not a host name, an IP address or a CIDR range`);
    }
  }
  return { hosts, ranges };
}

/** A dotted-quad IPv4 or an IPv6 address (never the loose IPv4 forms like `127.1`, which URLs normalise first). */
export const isAddressLiteral = (text: string): boolean =>
  ipaddr.IPv4.isValidFourPartDecimal(text) || ipaddr.IPv6.isValid(text);

/** `::ffff:a.b.c.d` is a.b.c.d: an IPv4-mapped address reaches the IPv4 host. */
const unmap = (ip: Ip): Ip =>
  ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress()
    ? (ip as ipaddr.IPv6).toIPv4Address()
    : ip;

const fromBits = (high: number, low: number): ipaddr.IPv4 =>
  new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);

const LABELS: Record<string, string> = {
  unspecified: 'an unspecified',
  broadcast: 'a broadcast',
  multicast: 'a multicast',
  linkLocal: 'a link-local',
  loopback: 'a loopback',
  carrierGradeNat: 'a carrier-grade NAT (shared)',
  private: 'a private',
  uniqueLocal: 'a unique-local',
  teredo: 'a Teredo tunnel',
  rfc6052: 'a local-use NAT64',
  deprecatedSiteLocal: 'a site-local',
};

/**
 * Why webhooks may not reach `address` ("127.0.0.1 is a loopback address"), or undefined for a public unicast
 * address. Only ipaddr.js's `unicast` passes: loopback, private, link-local, unique-local, multicast, unspecified,
 * broadcast, shared (CGNAT), documentation, benchmarking and every other special-purpose range are refused. IPv6
 * forms that carry an IPv4 address (mapped, IPv4-compatible, NAT64's well-known prefix, SIIT, 6to4) are judged by
 * that IPv4 address; Teredo and local-use NAT64 are refused.
 */
export function refusalReason(address: string): string | undefined {
  let ip: Ip;
  try {
    ip = unmap(ipaddr.parse(address));
  } catch {
    return `${address} is not an IP address`;
  }
  if (ip.kind() === 'ipv4') {
    const range = (ip as ipaddr.IPv4).range();
    return range === 'unicast' ? undefined : `${address} is ${LABELS[range] ?? `a ${range}`} address`;
  }
  const v6 = ip as ipaddr.IPv6;
  const range = v6.range();
  const [p0, p1, p2, p3, p4, p5, p6, p7] = v6.parts as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  let embedded: ipaddr.IPv4 | undefined;
  if (p0 === 0 && p1 === 0 && p2 === 0 && p3 === 0 && p4 === 0 && p5 === 0) {
    // ::a.b.c.d, the deprecated IPv4-compatible form (:: and ::1 are judged above as unspecified / loopback).
    if (range === 'unicast') embedded = fromBits(p6, p7);
  } else if (range === 'unicast') {
    return undefined;
  } else if (range === 'rfc6145' || (range === 'rfc6052' && p1 === 0xff9b && p2 === 0)) {
    embedded = fromBits(p6, p7); // SIIT, and NAT64's well-known prefix 64:ff9b::/96
  } else if (range === '6to4') {
    embedded = fromBits(p1, p2);
  }
  if (embedded) {
    const inner = refusalReason(embedded.toString());
    return inner && `${address} carries ${inner}`;
  }
  return `${address} is ${LABELS[range] ?? `a ${range}`} address`;
}

const normalizeHost = (host: string) => host.toLowerCase().replace(/\.$/, '');

/** Whether the operator allowed this host by name, or this address by range. */
function allowed(list: AllowList, host: string, address: string): boolean {
  if (list.hosts.has(normalizeHost(host))) return true;
  let ip: Ip;
  try {
    ip = unmap(ipaddr.parse(address));
  } catch {
    return false;
  }
  return list.ranges.some(([range, bits]) => range.kind() === ip.kind() && ip.match(range, bits));
}

export type TargetCheck = { address: string; family: 4 | 6 } | { refused: string };

/**
 * Picks the address to connect to among `addresses` (what `host` resolved to, in resolver order): the first one
 * that is public or allowed by the operator. The caller connects to exactly that address, never resolving again,
 * so a DNS answer that changes in between (rebinding) cannot move the request to an address nobody checked.
 */
export function checkTarget(list: AllowList, host: string, addresses: readonly string[]): TargetCheck {
  let firstRefusal: string | undefined;
  for (const address of addresses) {
    const reason = allowed(list, host, address) ? undefined : refusalReason(address);
    if (!reason) return { address, family: ipaddr.IPv4.isValidFourPartDecimal(address) ? 4 : 6 };
    firstRefusal ??= reason;
  }
  return {
    refused: firstRefusal ? `${firstRefusal}, which webhooks may not reach` : `${host} has no address`,
  };
}
