import { createHmac } from 'node:crypto';
import { deliveryHeaders, sign } from './signature';

describe('sign (Standard Webhooks)', () => {
  it('matches the reference vector of the specification', () => {
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const signature = sign(secret, {
      id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
      timestamp: 1614265330,
      body: '{"test": 2432232314}',
    });
    expect(signature).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('keys the HMAC with the decoded bytes, not the text of the secret', () => {
    const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    const message = { id: 'e1', timestamp: 1, body: '{}' };
    const expected = createHmac('sha256', Buffer.alloc(32, 7)).update('e1.1.{}').digest('base64');
    expect(sign(secret, message)).toBe(`v1,${expected}`);
  });

  it('changes with every signed part', () => {
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const base = { id: 'a', timestamp: 1, body: 'x' };
    const variants = [base, { ...base, id: 'b' }, { ...base, timestamp: 2 }, { ...base, body: 'y' }];
    expect(new Set(variants.map((m) => sign(secret, m))).size).toBe(4);
  });

  it('refuses a secret that is not whsec_ + base64 of 24 to 64 bytes', () => {
    const message = { id: 'a', timestamp: 1, body: '' };
    expect(() => sign('MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', message)).toThrow(/whsec_/);
    expect(() => sign(`whsec_${Buffer.alloc(16).toString('base64')}`, message)).toThrow(/24 to 64/);
    expect(() => sign('whsec_not base64!', message)).toThrow();
  });
});

describe('deliveryHeaders', () => {
  it('carries the event id, this attempt’s timestamp and the signature over both', () => {
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const message = { id: '7d1f3c0e-0000-4000-8000-000000000001', timestamp: 1700000000, body: '{"a":1}' };
    expect(deliveryHeaders(secret, message, 'Flowboard-Webhooks/1.0')).toEqual({
      'content-type': 'application/json',
      'user-agent': 'Flowboard-Webhooks/1.0',
      'webhook-id': message.id,
      'webhook-timestamp': '1700000000',
      'webhook-signature': sign(secret, message),
    });
  });
});
