import { parseWebhookUrl } from './webhook-url';

describe('parseWebhookUrl', () => {
  it('takes http and https URLs, normalised', () => {
    expect(parseWebhookUrl(' https://Hooks.Example.com/in?k=1 ')).toEqual({
      href: 'https://hooks.example.com/in?k=1',
      protocol: 'https:',
      host: 'hooks.example.com',
      port: 443,
      path: '/in?k=1',
      literal: false,
      origin: 'https://hooks.example.com',
    });
    expect(parseWebhookUrl('http://example.com:8080')).toMatchObject({
      port: 8080,
      path: '/',
      literal: false,
    });
  });

  it('sees through the spellings of an address', () => {
    expect(parseWebhookUrl('http://2130706433/')).toMatchObject({ host: '127.0.0.1', literal: true });
    expect(parseWebhookUrl('http://0x7f.1/')).toMatchObject({ host: '127.0.0.1', literal: true });
    expect(parseWebhookUrl('http://[::ffff:127.0.0.1]:81/x')).toMatchObject({
      host: '::ffff:7f00:1',
      port: 81,
      literal: true,
      origin: 'http://[::ffff:7f00:1]:81',
    });
  });

  it.each([
    ['', /required/],
    ['example.com/hook', /not a valid absolute URL/],
    ['ftp://example.com/', /http or https, not ftp/],
    ['file:///etc/passwd', /http or https, not file/],
    ['javascript:alert(1)', /http or https/],
    ['https://user:pass@example.com/', /credentials/],
    [`https://example.com/${'a'.repeat(2000)}`, /longer than 2000/],
  ])('refuses %j', (url, message) => {
    expect(() => parseWebhookUrl(url)).toThrow(
      expect.objectContaining({ kind: 'InvalidArgument', message: expect.stringMatching(message) }),
    );
  });
});
