import { createHash } from 'node:crypto';
import { apiKeyHint, generateApiKey, hashApiKey, isWellFormedApiKey, normalizeApiKey } from './secrets';
import { formatTimestamp } from './time';

describe('API keys', () => {
  it('are 32 lowercase hex characters and differ every time', () => {
    const keys = new Set(Array.from({ length: 100 }, generateApiKey));
    expect(keys.size).toBe(100);
    for (const key of keys) expect(key).toMatch(/^[0-9a-f]{32}$/);
  });

  it('are stored as their sha256 hex digest, never as themselves', () => {
    const key = '9aae75efd6b3470db8abd15b61c55cef';
    const hash = hashApiKey(key);
    expect(hash).toBe(createHash('sha256').update(key).digest('hex'));
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(hash).not.toContain(key);
  });

  it('have a 4-character hint', () => {
    expect(apiKeyHint('9aae75efd6b3470db8abd15b61c55cef')).toBe('5cef');
  });

  it('are accepted trimmed and in any case, and malformed ones are recognised', () => {
    expect(normalizeApiKey('  9AAE75EFD6B3470DB8ABD15B61C55CEF \n')).toBe('9aae75efd6b3470db8abd15b61c55cef');
    expect(isWellFormedApiKey('9aae75efd6b3470db8abd15b61c55cef')).toBe(true);
    expect(isWellFormedApiKey('9aae75efd6b3470db8abd15b61c55ce')).toBe(false);
    expect(isWellFormedApiKey('zzae75efd6b3470db8abd15b61c55cef')).toBe(false);
  });
});

describe('formatTimestamp', () => {
  it('shows UTC in whole seconds without a zone designator', () => {
    expect(formatTimestamp(new Date('2011-02-17T18:47:16.999+02:00'))).toBe('2011-02-17T16:47:16');
  });
});
