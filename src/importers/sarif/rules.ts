import { cweId, cweIdsIn } from '../../parsing/ids.js';
import { asArray, asNumber, asObject, asText, type JsonObject } from '../../parsing/json-fields.js';

/** The rules of one tool component (the driver or an extension), by position and by id. */
interface Component {
  list: JsonObject[];
  byId: Map<string, JsonObject>;
}

function componentOf(value: unknown): Component {
  const list = asArray(asObject(value)?.rules)
    .map(asObject)
    .filter((rule): rule is JsonObject => rule !== undefined);
  const byId = new Map<string, JsonObject>();
  for (const rule of list) {
    const id = asText(rule.id);
    if (id && !byId.has(id)) byId.set(id, rule);
  }
  return { list, byId };
}

/**
 * The rules of a run: the driver's and each extension's (CodeQL puts them in its query packs,
 * `tool.extensions`). Held for the length of the run, so memory grows with the number of
 * rules, not of results.
 */
export class RuleIndex {
  private driver: Component = { list: [], byId: new Map() };
  private readonly extensions = new Map<number, Component>();

  setDriver(driver: unknown): void {
    this.driver = componentOf(driver);
  }

  addExtension(index: number, extension: unknown): void {
    this.extensions.set(index, componentOf(extension));
  }

  /**
   * The rule a result refers to: by `rule.toolComponent.index` and `ruleIndex`/`rule.index`
   * when given, else by id in that component, then in any component, then by the id's first
   * part ("C2001/1" is a sub-rule of "C2001", §3.27.5).
   */
  find(result: JsonObject, ruleId: string | undefined): JsonObject | undefined {
    const reference = asObject(result.rule);
    const componentIndex = asNumber(asObject(reference?.toolComponent)?.index);
    const component =
      componentIndex === undefined ? this.driver : (this.extensions.get(componentIndex) ?? this.driver);
    const index = asNumber(reference?.index) ?? asNumber(result.ruleIndex);
    const byIndex = index !== undefined && index >= 0 ? component.list[index] : undefined;
    if (byIndex && (!ruleId || asText(byIndex.id) === ruleId)) return byIndex;
    if (!ruleId) return byIndex;
    return this.findById(component, ruleId) ?? this.findById(component, ruleId.split('/')[0]!) ?? byIndex;
  }

  private findById(component: Component, id: string): JsonObject | undefined {
    const own = component.byId.get(id);
    if (own) return own;
    if (this.driver.byId.has(id)) return this.driver.byId.get(id);
    for (const extension of this.extensions.values()) {
      const rule = extension.byId.get(id);
      if (rule) return rule;
    }
    return undefined;
  }
}

/** The text of a SARIF message or multiformat string (plain text preferred over markdown). */
export function messageText(value: unknown): string | undefined {
  const message = asObject(value);
  return asText(message?.text) ?? asText(message?.markdown);
}

/**
 * CWE ids a rule names: in `relationships` (Flawfinder: target id "CWE-327", or a numeric id in
 * the CWE taxonomy), in its tags (CodeQL: "external/cwe/cwe-079"; Semgrep: "CWE-346: …"), in
 * `properties.cwe` (Snyk Code) and in a `helpUri` that is a cwe.mitre.org page.
 */
export function ruleCweIds(rule: JsonObject | undefined): string[] {
  if (!rule) return [];
  const properties = asObject(rule.properties);
  const ids = asArray(rule.relationships).flatMap((relationship) =>
    taxonCweIds(asObject(relationship)?.target),
  );
  for (const tag of asArray(properties?.tags)) ids.push(...cweIdsIn(asText(tag)));
  for (const value of [properties?.cwe].flat()) ids.push(...cweIdsIn(asText(value)));
  // Flawfinder and some taint analysers link the rule to its CWE page and say no more.
  const page = /cwe\.mitre\.org\/data\/definitions\/(\d+)\.html/i.exec(asText(rule.helpUri) ?? '');
  const linked = cweId(page?.[1]);
  if (linked) ids.push(linked);
  return ids;
}

/** CWE ids a result names itself: `properties.cwe` (njsscan) and `taxa` (the SARIF way). */
export function resultCweIds(result: JsonObject): string[] {
  const ids = [asObject(result.properties)?.cwe].flat().flatMap((value) => cweIdsIn(asText(value)));
  for (const taxon of asArray(result.taxa)) ids.push(...taxonCweIds(taxon));
  return ids;
}

/** A reference to a taxon: "CWE-79" anywhere, or a bare number in a component named CWE. */
function taxonCweIds(value: unknown): string[] {
  const taxon = asObject(value);
  const id = asText(taxon?.id);
  const named = cweIdsIn(id);
  if (named.length > 0) return named;
  const inCweTaxonomy = asText(asObject(taxon?.toolComponent)?.name)?.toUpperCase() === 'CWE';
  const bare = inCweTaxonomy ? cweId(id) : undefined;
  return bare ? [bare] : [];
}
