/** A time as the API writes it: ISO 8601 in UTC, or null when there is none. */
export const isoOrNull = (d: Date | null) => (d ? d.toISOString() : null);
