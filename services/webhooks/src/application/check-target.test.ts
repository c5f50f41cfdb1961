import { EMPTY_ALLOW_LIST, parseAllowList } from '../domain/address-policy';
import { makeCheckTarget } from './check-target';

const resolver = (answers: Record<string, string[] | Error>) => ({
  resolve: async (host: string) => {
    const answer = answers[host] ?? [];
    if (answer instanceof Error) throw answer;
    return answer;
  },
});

describe('checkTarget (create and update)', () => {
  const check = makeCheckTarget({
    resolver: resolver({
      'hooks.example.com': ['93.184.215.14'],
      'evil.example.com': ['169.254.169.254'],
      'mixed.example.com': ['10.0.0.1', '93.184.215.14'],
      localhost: ['::1', '127.0.0.1'],
      'slow.example.com': new Error('EAI_AGAIN'),
    }),
    allowList: EMPTY_ALLOW_LIST,
  });

  it('accepts a host with a public address', async () => {
    await expect(check('https://hooks.example.com/x')).resolves.toMatchObject({ host: 'hooks.example.com' });
    await expect(check('https://mixed.example.com/x')).resolves.toMatchObject({ host: 'mixed.example.com' });
    await expect(check('http://93.184.215.14/')).resolves.toMatchObject({ literal: true });
  });

  it.each([
    ['http://127.0.0.1:8080/', /not allowed: 127\.0\.0\.1 is a loopback address/],
    ['http://[::1]/', /::1 is a loopback address/],
    ['http://localhost/', /::1 is a loopback address/],
    ['http://evil.example.com/', /169\.254\.169\.254 is a link-local address/],
    ['http://10.1.1.1/', /private/],
    ['http://missing.example.com/', /host missing\.example\.com does not resolve/],
    ['gopher://hooks.example.com/', /http or https/],
  ])('refuses %s with a clear message', async (url, message) => {
    await expect(check(url)).rejects.toMatchObject({
      kind: 'InvalidArgument',
      message: expect.stringMatching(message),
    });
  });

  it('accepts a host the resolver cannot answer for now: every attempt checks again', async () => {
    await expect(check('https://slow.example.com/')).resolves.toMatchObject({ host: 'slow.example.com' });
  });

  it('does not wait past its timeout for a resolver that hangs', async () => {
    const hanging = makeCheckTarget({
      resolver: { resolve: () => new Promise<string[]>(() => undefined) },
      allowList: EMPTY_ALLOW_LIST,
      resolveTimeoutMs: 20,
    });
    await expect(hanging('https://hooks.example.com/')).resolves.toMatchObject({ host: 'hooks.example.com' });
  });

  it('lets the operator’s allow-list through', async () => {
    const allowing = makeCheckTarget({
      resolver: resolver({ localhost: ['127.0.0.1'] }),
      allowList: parseAllowList(['127.0.0.0/8']),
    });
    await expect(allowing('http://localhost:9999/hook')).resolves.toMatchObject({ port: 9999 });
    await expect(allowing('http://[::1]/')).rejects.toMatchObject({ kind: 'InvalidArgument' });
  });
});
