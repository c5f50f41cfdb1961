import { DomainError } from '@flowboard/service-kit';

// YYYY-MM-DD, optionally followed by a time (T or space), optional seconds and fraction, optional zone.
const PATTERN =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,]\d+)?)?(?:([Zz])|([+-])(\d{2}):?(\d{2}))?)?$/;

const invalid = () =>
  new DomainError(
    'InvalidArgument',
    'Invalid deadline: expected a date (YYYY-MM-DD) or a timestamp (YYYY-MM-DDTHH:MM:SS).',
    {
      problem: 'invalid-field',
    },
  );

/**
 * Parses a deadline (docs/compat.md §1.5): a date alone means T00:00:00; a `Z` or an offset is converted to
 * UTC; without a zone the time is already UTC; fractions of a second are dropped. Impossible dates (Feb 30,
 * 24:00) are refused. Empty input means "no deadline" (null).
 */
export function parseDeadline(input: string | undefined | null): Date | null {
  const text = (input ?? '').trim();
  if (text === '') return null;
  const m = PATTERN.exec(text);
  if (!m) throw invalid();
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const [hour, minute, second] = [Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0)];
  if (year < 1 || month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59)
    throw invalid();

  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day); // unlike Date.UTC, keeps years below 100 as they are
  date.setUTCHours(hour, minute, second, 0);
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day)
    throw invalid();

  if (m[8]) {
    const offsetHours = Number(m[9]);
    const offsetMinutes = Number(m[10]);
    if (offsetHours > 23 || offsetMinutes > 59) throw invalid();
    const sign = m[8] === '+' ? 1 : -1;
    date.setTime(date.getTime() - sign * (offsetHours * 60 + offsetMinutes) * 60_000);
  }
  const utcYear = date.getUTCFullYear();
  if (utcYear < 1 || utcYear > 9999) throw invalid();
  return date;
}
