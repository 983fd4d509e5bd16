/**
 * A field of a service's input, by its domain name: `'ipAddresses'`, or a path into nested input
 * (`['location', 'port']`). Services name fields this way; how a client names them is not theirs
 * to know.
 */
export type Field = string | readonly string[];

/** A request value that breaks a rule, by the domain field it is in. */
export interface FieldIssue {
  field: readonly string[];
  message: string;
}

/**
 * Domain names that the API spells other than as their PascalCase: a finding's location says
 * `File` and `Package` (the fields are `filePath`, `packageName`), a vulnerability's CVE ids are
 * `Cve` in request bodies.
 */
const WIRE_NAMES: Readonly<Record<string, string>> = {
  filePath: 'File',
  packageName: 'Package',
  cveIds: 'Cve',
};

const wireName = (name: string) => WIRE_NAMES[name] ?? `${name.charAt(0).toUpperCase()}${name.slice(1)}`;

export function fieldPath(field: Field): readonly string[] {
  return typeof field === 'string' ? [field] : field;
}

/**
 * The JSON pointer a client knows a field by (`['location', 'port']` → `/Location/Port`): the
 * API is PascalCase on the wire. Problem documents and the CLI's messages name fields this way.
 */
export function fieldPointer(field: readonly string[]): string {
  return field.map((name) => `/${wireName(name)}`).join('');
}
