import { checkTarget, EMPTY_ALLOW_LIST, parseAllowList, refusalReason } from './address-policy';

describe('refusalReason', () => {
  it.each([
    ['8.8.8.8'],
    ['1.1.1.1'],
    ['93.184.215.14'],
    ['2606:4700:4700::1111'],
    ['2a00:1450:4001:80b::200e'],
    ['::ffff:8.8.8.8'], // IPv4-mapped: judged as 8.8.8.8
    ['64:ff9b::808:808'], // NAT64 of 8.8.8.8
    ['2002:808:808::1'], // 6to4 of 8.8.8.8
  ])('lets the public address %s through', (address) => {
    expect(refusalReason(address)).toBeUndefined();
  });

  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link-local'], // cloud metadata
    ['100.64.0.1', 'carrier-grade NAT'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['255.255.255.255', 'broadcast'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['192.0.2.10', 'reserved'], // documentation
    ['198.18.0.1', 'reserved'], // benchmarking
    ['240.0.0.1', 'reserved'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456:789a::1', 'unique-local'],
    ['ff02::1', 'multicast'],
    ['fec0::1', 'site-local'],
    ['2001:db8::1', 'reserved'],
    ['2001::1', 'Teredo'],
    ['64:ff9b:1::a00:1', 'local-use NAT64'],
  ])('refuses %s (%s)', (address, label) => {
    expect(refusalReason(address)).toContain(label);
    expect(refusalReason(address)).toMatch(new RegExp(`^${address.replace(/[.%]/g, '\\$&')} is an? `));
  });

  it.each([
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:169.254.169.254', 'link-local'],
    ['::127.0.0.1', 'loopback'], // IPv4-compatible (deprecated)
    ['::ffff:0:a00:1', 'private'], // SIIT
    ['64:ff9b::7f00:1', 'loopback'], // NAT64
    ['64:ff9b::a9fe:a9fe', 'link-local'],
    ['2002:a00:1::1', 'private'], // 6to4 of 10.0.0.1
  ])('judges %s by the IPv4 address it carries (%s)', (address, label) => {
    expect(refusalReason(address)).toContain(label);
  });

  it('refuses what is not an address', () => {
    expect(refusalReason('example.com')).toMatch(/not an IP address/);
  });
});

describe('parseAllowList', () => {
  it('reads host names, addresses and CIDR ranges; skips blanks', () => {
    const list = parseAllowList(['127.0.0.0/8', ' ::1 ', '', 'Hooks.Internal.', '10.0.0.7', 'fd00::/8']);
    expect([...list.hosts]).toEqual(['hooks.internal']);
    expect(list.ranges.map(([ip, bits]) => `${ip.toString()}/${bits}`)).toEqual([
      '127.0.0.0/8',
      '::1/128',
      '10.0.0.7/32',
      'fd00::/8',
    ]);
  });

  it('refuses anything else', () => {
    expect(() => parseAllowList(['http://x'])).toThrow(/"http:\/\/x" is not a host name/);
    expect(() => parseAllowList(['10.0.0.0/33'])).toThrow();
    expect(() => parseAllowList(['a b'])).toThrow();
  });
});

describe('checkTarget', () => {
  it('connects to the first acceptable address, and names the refusal otherwise', () => {
    expect(checkTarget(EMPTY_ALLOW_LIST, 'example.com', ['10.0.0.1', '93.184.215.14'])).toEqual({
      address: '93.184.215.14',
      family: 4,
    });
    expect(checkTarget(EMPTY_ALLOW_LIST, 'example.com', ['2606:4700::1'])).toEqual({
      address: '2606:4700::1',
      family: 6,
    });
    expect(checkTarget(EMPTY_ALLOW_LIST, 'localhost', ['::1', '127.0.0.1'])).toEqual({
      refused: '::1 is a loopback address, which webhooks may not reach',
    });
    expect(checkTarget(EMPTY_ALLOW_LIST, 'nowhere', [])).toEqual({ refused: 'nowhere has no address' });
  });

  it('lets the operator allow ranges (an IPv4-mapped address matches its IPv4 range) and host names', () => {
    const list = parseAllowList(['127.0.0.0/8', 'hooks.internal']);
    expect(checkTarget(list, 'x', ['127.0.0.1'])).toEqual({ address: '127.0.0.1', family: 4 });
    expect(checkTarget(list, 'x', ['::ffff:127.0.0.2'])).toEqual({ address: '::ffff:127.0.0.2', family: 6 });
    expect(checkTarget(list, 'x', ['::1'])).toHaveProperty('refused');
    expect(checkTarget(list, 'x', ['10.0.0.1'])).toHaveProperty('refused');
    expect(checkTarget(list, 'HOOKS.internal', ['10.0.0.1'])).toEqual({ address: '10.0.0.1', family: 4 });
  });
});
