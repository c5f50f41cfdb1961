/** API timestamps: `YYYY-MM-DDTHH:MM:SS`, whole seconds, UTC, no zone designator (api-compat §1.5). */
export const formatTimestamp = (date: Date): string => date.toISOString().slice(0, 19);
