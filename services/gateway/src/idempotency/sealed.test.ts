import { open, seal } from './sealed';

describe('sealed answers', () => {
  it('open only under the key and scope they were sealed with', () => {
    const sealed = seal(Buffer.from('{"apiKey":"secret"}'), 'key-1', 'user:7');
    expect(sealed).not.toContain('secret');
    expect(open(sealed, 'key-1', 'user:7').toString()).toBe('{"apiKey":"secret"}');
    expect(() => open(sealed, 'key-2', 'user:7')).toThrow();
    expect(() => open(sealed, 'key-1', 'user:8')).toThrow();
  });
});
