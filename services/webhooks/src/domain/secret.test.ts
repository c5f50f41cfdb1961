import { generateSecret, secretKey } from './secret';

describe('generateSecret', () => {
  it('is whsec_ + base64 of 32 random bytes, different every time', () => {
    const a = generateSecret();
    const b = generateSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(secretKey(a)).toHaveLength(32);
    expect(a).not.toBe(b);
  });
});

describe('secretKey', () => {
  it('decodes the part after the prefix', () => {
    expect(secretKey(`whsec_${Buffer.alloc(24, 1).toString('base64')}`)).toEqual(Buffer.alloc(24, 1));
    expect(secretKey(`whsec_${Buffer.alloc(64, 2).toString('base64')}`)).toEqual(Buffer.alloc(64, 2));
  });

  it.each([
    ['no prefix', Buffer.alloc(32).toString('base64')],
    ['too short', `whsec_${Buffer.alloc(23).toString('base64')}`],
    ['too long', `whsec_${Buffer.alloc(65).toString('base64')}`],
    ['not base64', 'whsec_%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%'],
    ['empty', 'whsec_'],
  ])('refuses a secret with %s', (_case, secret) => {
    expect(() => secretKey(secret)).toThrow();
  });
});
