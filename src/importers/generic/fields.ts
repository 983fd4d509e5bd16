import { asObject, asText } from '../../parsing/json-fields.js';

/**
 * A finding's fields by a loose name, so JSON keys ("false_p", "vuln_id_from_tool") and CSV
 * columns ("FalsePositive", "Vulnerability Id", " Url") are found the same way: lower case,
 * with everything but letters and digits left out.
 */
export class Fields {
  private readonly values = new Map<string, unknown>();

  constructor(entries: Iterable<[string, unknown]>) {
    for (const [name, value] of entries) {
      const key = looseName(name);
      // The first field of a name that says something wins (a CSV may repeat a column).
      if (key && isEmpty(this.values.get(key))) this.values.set(key, value);
    }
  }

  /** The value of the first of `names` that is present and not empty. */
  get(...names: string[]): unknown {
    for (const name of names) {
      const value = this.values.get(name);
      if (!isEmpty(value)) return value;
    }
    return undefined;
  }

  text(...names: string[]): string | undefined {
    return asText(this.get(...names));
  }

  /**
   * A yes/no field: JSON booleans, or text starting with t/y or "1" for yes (DefectDojo reads
   * only the first letter); undefined when absent or empty.
   */
  flag(...names: string[]): boolean | undefined {
    const value = this.get(...names);
    if (typeof value === 'boolean') return value;
    const text = asText(value)?.toLowerCase();
    if (text === undefined) return undefined;
    return text.startsWith('t') || text.startsWith('y') || text === '1';
  }

  /** A list field: a JSON list, or text with items separated by commas, semicolons or new lines. */
  list(...names: string[]): unknown[] {
    const value = this.get(...names);
    if (Array.isArray(value)) return value;
    const text = asText(value);
    return text ? text.split(/[,;\n]+/).map((item) => item.trim()) : [];
  }
}

export function looseName(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, '');
}

function isEmpty(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (typeof value === 'string') return value.trim() === '';
  if (Array.isArray(value)) return value.length === 0;
  return false;
}

/** The items of a list that are texts or objects carrying the text under `key`. */
export function textsOf(values: unknown[], key: string): string[] {
  return values
    .map((value) => asText(value) ?? asText(asObject(value)?.[key]))
    .filter((text): text is string => text !== undefined);
}
