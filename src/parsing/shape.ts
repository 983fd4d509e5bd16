import { type JsonKind, type JsonPath, type JsonPosition, pathName } from './json.js';
import { ReportError } from './report-error.js';

/**
 * The shape a JSON report must have where the importer reads it: the top-level value, each
 * list it goes through and the records in them. Checked as each value starts (jsonValues'
 * `onValue`), so a report of the right format but the wrong shape (Trivy's `Results` a number,
 * Grype's `matches` an object) fails where it goes wrong instead of importing nothing.
 *
 * Rules are written as paths: `""` is the top-level value (each line's value in JSON Lines),
 * `Results` a key of it, `Results[]` any element of that list, `*` any key (`vulnerabilities.*`).
 * The kind is a JsonKind, or several joined by `|` (`object|array`); a trailing `?` allows null
 * (real reports write `"Vulnerabilities": null` for an empty list). A missing value is never an
 * error.
 */
export type ShapeKind = string;

/** [path, kind, what the value is, in the format's words: "a list of results"]. */
export type ShapeRule = readonly [path: string, kind: ShapeKind, what: string];

type Step = string | typeof ANY_INDEX | typeof ANY_KEY;
const ANY_INDEX = Symbol('[]');
const ANY_KEY = Symbol('*');

interface Compiled {
  steps: Step[];
  kinds: ReadonlySet<JsonKind>;
  what: string;
}

/**
 * The `onValue` callback that fails a `format` ("a Trivy JSON report") whose values break `rules`,
 * with a ReportError naming the value, what it is, what it should be, and its line and column.
 */
export function shapeCheck(
  format: string,
  rules: readonly ShapeRule[],
): (path: JsonPath, kind: JsonKind, at?: () => JsonPosition | undefined) => void {
  const compiled = rules.map(compile);
  const deepest = Math.max(...compiled.map((rule) => rule.steps.length));
  return (path, kind, at) => {
    if (path.length > deepest) return;
    for (const rule of compiled) {
      if (!matches(rule.steps, path)) continue;
      if (rule.kinds.has(kind)) return;
      const where = at?.();
      const message = `This is not ${format} of the expected shape: ${nameOf(path)} is ${kindText(kind)}, not ${rule.what}`;
      throw new ReportError(message, where?.line, where?.column);
    }
  };
}

function compile([path, kind, what]: ShapeRule): Compiled {
  const steps: Step[] = [];
  for (const part of path === '' ? [] : path.split('.')) {
    const name = part.replace(/(\[\])+$/, '');
    if (name) steps.push(name === '*' ? ANY_KEY : name);
    for (let i = name.length; i < part.length; i += 2) steps.push(ANY_INDEX);
  }
  const kinds = kind.replace(/\?$/, '').split('|') as JsonKind[];
  if (kind.endsWith('?')) kinds.push('null');
  return { steps, kinds: new Set(kinds), what };
}

function matches(steps: readonly Step[], path: JsonPath): boolean {
  if (steps.length !== path.length) return false;
  return steps.every((step, i) => {
    const at = path[i];
    if (step === ANY_INDEX) return typeof at === 'number';
    if (step === ANY_KEY) return typeof at === 'string';
    return at === step;
  });
}

/** "`Results[3].Vulnerabilities`", or "the report" for the top-level value. */
function nameOf(path: JsonPath): string {
  if (path.length === 0) return 'the report';
  return `\`${pathName(path)}\``;
}

/** "a number", "an object", "null". */
function kindText(kind: JsonKind): string {
  if (kind === 'null') return 'null';
  if (kind === 'array') return 'a list';
  return kind === 'object' ? 'an object' : `a ${kind}`;
}
