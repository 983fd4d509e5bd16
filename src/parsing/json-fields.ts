/**
 * Reading fields of parsed JSON whose shape is not guaranteed: each helper answers undefined
 * (or an empty list) instead of throwing when a report holds something unexpected.
 */

export type JsonObject = Record<string, unknown>;

export function asObject(value: unknown): JsonObject | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as JsonObject)
    : undefined;
}

export function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** Non-empty text; numbers are written out (some tools quote ids, some do not). */
export function asText(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  return text ? text : undefined;
}

/** A finite number, also from numeric text ("7.5"). */
export function asNumber(value: unknown): number | undefined {
  const n = typeof value === 'string' && value.trim() ? Number(value) : value;
  return typeof n === 'number' && Number.isFinite(n) ? n : undefined;
}

/** The non-empty texts of a list. */
export function texts(value: unknown): string[] {
  return asArray(value)
    .map(asText)
    .filter((t): t is string => t !== undefined);
}
