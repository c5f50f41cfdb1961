/** UTC `YYYY-MM-DDTHH:MM:SS`, as every service's contract shows times. */
export const formatTimestamp = (date: Date): string => date.toISOString().slice(0, 19);

/** `""` for an unset time. */
export const formatOptionalTimestamp = (date: Date | null | undefined): string =>
  date ? formatTimestamp(date) : '';
