import { stdioSettings } from './config';

describe('the stdio entry point’s settings', () => {
  it('come from the flags, else the environment, and say how when something is missing', () => {
    expect(stdioSettings(['--url', 'http://gw:8080', '--key', 'k'], {})).toEqual({
      url: 'http://gw:8080',
      key: 'k',
    });
    expect(stdioSettings(['--url', 'http://gw:8080'], { FLOWBOARD_API_KEY: 'env-key' })).toEqual({
      url: 'http://gw:8080',
      key: 'env-key',
    });
    expect(stdioSettings(['--url', 'http://gw:8080'], {})).toMatchObject({
      usage: expect.stringMatching(/^usage:/),
    });
    expect(stdioSettings(['--url', 'gw:8080', '--key', 'k'], {})).toMatchObject({ usage: /http\(s\) URL/ });
    expect(stdioSettings(['--help'], {})).toMatchObject({ help: true });
  });
});
