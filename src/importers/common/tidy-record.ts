import type { ImportRecord } from '../types.js';
import type { TextLimits } from './limits.js';

/**
 * Trims every text of a record, removes control characters (a NUL byte in a version string
 * cannot be stored) and cuts it to the import's limits (`evidence` to the evidence limit,
 * anything else to the field limit), then drops what is left empty: blank texts, empty lists,
 * undefined values. Lists of texts lose their repeats. Mappers can then copy a report's fields
 * as they are and still hand back a record that respects the limits.
 */
export function tidyRecord<T extends ImportRecord>(record: T, limits: TextLimits): T {
  return tidy(record, 'record', limits) as T;
}

/** Control characters other than tab and line ends: PostgreSQL text refuses NUL, and none is readable. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is its purpose
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g;

function tidy(value: unknown, key: string, limits: TextLimits): unknown {
  if (typeof value === 'string') {
    const text = value.replace(CONTROL, '');
    return key === 'evidence' ? limits.evidence(text) : limits.field(text, key);
  }
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (Array.isArray(value)) {
    const items = value.map((item) => tidy(item, key, limits)).filter((item) => item !== undefined);
    const unique = items.every((item) => typeof item === 'string') ? [...new Set(items)] : items;
    return unique.length > 0 ? unique : undefined;
  }
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const tidied = tidy(v, k, limits);
      if (tidied !== undefined) out[k] = tidied;
    }
    return out;
  }
  return value === null ? undefined : value;
}
