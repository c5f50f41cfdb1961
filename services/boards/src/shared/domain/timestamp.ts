/** API timestamps: UTC, whole seconds, no zone designator (`YYYY-MM-DDTHH:MM:SS`, docs/compat.md §1.5). */
export function formatTimestamp(date: Date): string {
  return date.toISOString().slice(0, 19);
}

/** `""` for an unset optional time, as the gRPC contract carries it. */
export const formatOptionalTimestamp = (date: Date | null | undefined): string =>
  date ? formatTimestamp(date) : '';
