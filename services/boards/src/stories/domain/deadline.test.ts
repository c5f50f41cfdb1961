import { DomainError } from '@flowboard/service-kit';
import { parseDeadline } from './deadline';
import { formatTimestamp } from '../../shared/domain/timestamp';

const parsed = (input: string) => {
  const date = parseDeadline(input);
  return date && formatTimestamp(date);
};

describe('parseDeadline', () => {
  it('means no deadline when empty', () => {
    expect(parseDeadline('')).toBeNull();
    expect(parseDeadline('  ')).toBeNull();
    expect(parseDeadline(undefined)).toBeNull();
  });

  it('reads a date alone as midnight UTC', () => {
    expect(parsed('2011-02-24')).toBe('2011-02-24T00:00:00');
  });

  it('keeps a zone-less timestamp as UTC', () => {
    expect(parsed('2011-02-24T13:45:10')).toBe('2011-02-24T13:45:10');
    expect(parsed('2011-02-24 13:45')).toBe('2011-02-24T13:45:00');
  });

  it('converts Z and offsets to UTC', () => {
    expect(parsed('2011-02-24T13:45:10Z')).toBe('2011-02-24T13:45:10');
    expect(parsed('2011-02-24T13:45:10+02:00')).toBe('2011-02-24T11:45:10');
    expect(parsed('2011-02-24T01:30:00+0230')).toBe('2011-02-23T23:00:00');
    expect(parsed('2011-12-31T23:30:00-01:00')).toBe('2012-01-01T00:30:00');
  });

  it('drops fractions of a second (no rounding)', () => {
    expect(parsed('2011-02-24T13:45:10.999')).toBe('2011-02-24T13:45:10');
    expect(parsed('2011-02-24T13:45:10.5Z')).toBe('2011-02-24T13:45:10');
  });

  it.each([
    'tomorrow',
    '2011-2-24',
    '24/02/2011',
    '2011-02-30',
    '2011-13-01',
    '2011-02-24T24:00:00',
    '2011-02-24T12:60',
    '2011-02-24T12:00:61',
    '2011-02-24T12:00:00+25:00',
    '0000-01-01',
    '2011-02-24T',
    '2011-02-24T12:00:00 Z',
  ])('refuses %p as InvalidArgument naming deadline', (input) => {
    expect(() => parseDeadline(input)).toThrow(DomainError);
    expect(() => parseDeadline(input)).toThrow(/deadline/);
  });

  it('accepts 29 February only in leap years', () => {
    expect(parsed('2012-02-29')).toBe('2012-02-29T00:00:00');
    expect(() => parseDeadline('2011-02-29')).toThrow(DomainError);
  });
});
