import { DomainError } from '@flowboard/service-kit';
import { parseColor, STORY_COLORS } from './color';

describe('parseColor', () => {
  it('defaults to grey when unset', () => {
    expect(parseColor('')).toBe('grey');
    expect(parseColor(undefined)).toBe('grey');
    expect(parseColor(null)).toBe('grey');
  });

  it('accepts every colour in any case and stores it lowercase', () => {
    for (const color of STORY_COLORS) {
      expect(parseColor(color)).toBe(color);
      expect(parseColor(color.toUpperCase())).toBe(color);
    }
    expect(parseColor('TeAl')).toBe('teal');
    expect(parseColor(' Red ')).toBe('red');
  });

  it('refuses unknown colours as InvalidArgument naming the field', () => {
    for (const bad of ['pink', 'gray', 'colour', 'red!', 'grey grey']) {
      let error: unknown;
      try {
        parseColor(bad);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(DomainError);
      expect((error as DomainError).kind).toBe('InvalidArgument');
      expect((error as DomainError).message).toMatch(/\bcolor\b/);
    }
  });
});
