import { randomBytes } from 'node:crypto';
import { open, parseSealingKey, seal } from './secret-box';

const key = parseSealingKey(randomBytes(32).toString('base64'));

describe('seal / open', () => {
  it('round-trips, and never stores the plaintext', () => {
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const sealed = seal(key, secret, 'webhooks.secret:1');
    expect(sealed.toString('latin1')).not.toContain('MfKQ9r8');
    expect(open(key, sealed, 'webhooks.secret:1')).toBe(secret);
    expect(seal(key, secret, 'webhooks.secret:1').equals(sealed)).toBe(false); // a fresh IV each time
  });

  it('does not open under another context (a value copied to another row), key, or after tampering', () => {
    const sealed = seal(key, 'whsec_x', 'webhooks.secret:1');
    expect(() => open(key, sealed, 'webhooks.secret:2')).toThrow();
    expect(() =>
      open(parseSealingKey(randomBytes(32).toString('base64')), sealed, 'webhooks.secret:1'),
    ).toThrow();
    const tampered = Buffer.from(sealed);
    tampered[tampered.length - 1]! ^= 1;
    expect(() => open(key, tampered, 'webhooks.secret:1')).toThrow();
  });
});

describe('parseSealingKey', () => {
  it('takes base64 of 32 bytes and names it by a digest prefix', () => {
    const raw = randomBytes(32).toString('base64');
    const parsed = parseSealingKey(raw);
    expect(parsed.key).toHaveLength(32);
    expect(parsed.id).toMatch(/^[0-9a-f]{12}$/);
    expect(parseSealingKey(raw).id).toBe(parsed.id);
  });

  it('refuses other lengths and non-base64 without repeating the value', () => {
    for (const bad of [randomBytes(16).toString('base64'), 'not-a-key', '']) {
      let message = '';
      try {
        parseSealingKey(bad);
      } catch (err) {
        message = (err as Error).message;
      }
      expect(message).toMatch(/32 bytes/);
      if (bad) expect(message).not.toContain(bad);
    }
  });
});
