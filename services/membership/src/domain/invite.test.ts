import { isPending } from './invite';

describe('invite expiry', () => {
  const now = new Date('2026-01-15T00:00:00Z');
  it('is pending strictly before its expiry', () => {
    expect(isPending({ expiresAt: new Date('2026-01-15T00:00:01Z') }, now)).toBe(true);
    expect(isPending({ expiresAt: now }, now)).toBe(false);
    expect(isPending({ expiresAt: new Date('2026-01-01T00:00:00Z') }, now)).toBe(false);
  });
});
