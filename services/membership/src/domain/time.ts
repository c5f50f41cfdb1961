/** API timestamps: `YYYY-MM-DDTHH:MM:SS`, whole seconds, UTC, no zone designator (docs/compat.md §1.5). */
export const formatTimestamp = (date: Date): string => date.toISOString().slice(0, 19);
