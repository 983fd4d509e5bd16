import { asArray, asObject, asText, type JsonObject, texts } from '../../parsing/json-fields.js';
import { parsePurl } from '../../parsing/purl.js';
import { vulnerabilityIds } from '../common/vulnerability-ids.js';
import type { AssetRef, FindingRecord, LocationRef, Severity, StateRef, VulnerabilityRef } from '../types.js';
import { imageOfPurl, packageLocation, productAsset } from './product.js';

/** The statuses OpenVEX defines (spec v0.2.0, "Status Labels"). */
export type VexStatus = 'not_affected' | 'affected' | 'fixed' | 'under_investigation';

const STATUSES = new Set<string>(['not_affected', 'affected', 'fixed', 'under_investigation']);

/**
 * Severity by status: VEX states exploitability, not impact, so a document carries no severity.
 * "affected" — the producer asserting real exposure — is Medium, so a minimum-severity filter does
 * not hide it; every other status is Info, as DefectDojo has it: those findings exist to record a
 * decision (or an open question), and ranking them would put them before the real ones.
 */
export const OPENVEX_SEVERITY: Readonly<Record<VexStatus, Severity>> = {
  affected: 'Medium',
  under_investigation: 'Info',
  not_affected: 'Info',
  fixed: 'Info',
};

/** What the statements share: the document, for evidence and as the asset of bare packages. */
export interface VexDocument {
  id?: string;
  author?: string;
  /** The asset of products that are packages, not images nor products with subcomponents. */
  asset(): AssetRef;
}

interface VexVulnerability {
  id: string;
  aliases: string[];
  description?: string;
  url?: string;
}

interface VexProduct {
  id: string;
  purl?: string;
  subcomponents: VexProduct[];
}

/** v0.0.1 wrote the vulnerability as a bare string; v0.2.0 as an object with name, @id and aliases. */
function vulnerabilityOf(raw: unknown): VexVulnerability | undefined {
  const bare = asText(raw);
  if (bare) return { id: bare, aliases: [] };
  const v = asObject(raw);
  const uri = asText(v?.['@id']);
  const id = asText(v?.name) ?? uri;
  if (!v || !id) return undefined;
  return {
    id,
    aliases: texts(v.aliases),
    description: asText(v.description),
    url: uri && /^https?:\/\//i.test(uri) ? uri : undefined,
  };
}

/** A product or subcomponent: a bare id (v0.0.1) or an object with @id and identifiers. */
function productOf(raw: unknown, depth = 0): VexProduct | undefined {
  const bare = asText(raw);
  if (bare) return { id: bare, purl: parsePurl(bare) ? bare : undefined, subcomponents: [] };
  const p = asObject(raw);
  const identified = asText(asObject(p?.identifiers)?.purl);
  const id = asText(p?.['@id']) ?? identified;
  if (!p || !id) return undefined;
  const subcomponents = depth > 0 ? [] : products(p.subcomponents, depth + 1);
  return { id, purl: parsePurl(id) ? id : identified, subcomponents };
}

function products(raw: unknown, depth = 0): VexProduct[] {
  return asArray(raw)
    .map((p) => productOf(p, depth))
    .filter((p): p is VexProduct => p !== undefined);
}

/**
 * The decision a status carries. not_affected is a false positive whatever its justification
 * (the reason keeps it): the producer says the match is no exposure. DefectDojo splits the
 * justifications (component_not_present → out of scope, inline_mitigations_already_exist →
 * mitigated); Rampart has no such states, and "mitigated" as Fixed would claim a remediation
 * that never happened. fixed is Fixed; affected and under_investigation stay open.
 */
export function statusState(status: VexStatus, statement: JsonObject): StateRef | undefined {
  const notes = asText(statement.status_notes);
  if (status === 'fixed') return { state: 'Fixed', reason: `fixed${notes ? `: ${notes}` : ''}` };
  if (status !== 'not_affected') return undefined;
  const justification = asText(statement.justification);
  const detail = asText(statement.impact_statement) ?? notes;
  return {
    state: 'FalsePositive',
    reason: `not_affected${justification ? ` (${justification})` : ''}${detail ? `: ${detail}` : ''}`,
  };
}

interface Target {
  asset: AssetRef;
  location: LocationRef;
  toolFindingId: string;
  what: string;
}

/**
 * Where a statement applies, per product. A product with subcomponents is the asset (its image,
 * or a project named after it) and each subcomponent a package in it. A product without any is
 * itself the affected thing: an image is its own asset, located at the image; a package is
 * located at the package, in the document's asset (OpenVEX does not say what holds it).
 */
function targets(product: VexProduct, shared: VexProduct[], vulnerabilityId: string, doc: VexDocument) {
  const subcomponents = [...product.subcomponents, ...shared];
  const image = imageOfPurl(product.purl);
  if (subcomponents.length > 0) {
    const asset = productAsset(product.id, product.purl);
    return subcomponents.map<Target>((s) => ({
      asset,
      location: packageLocation(s.purl ?? s.id),
      toolFindingId: `${product.id}|${s.id}|${vulnerabilityId}`,
      what: `Product: ${product.id}\nSubcomponent: ${s.id}`,
    }));
  }
  return [
    {
      asset: image ? { kind: 'ContainerImage', image } : doc.asset(),
      location: packageLocation(product.purl ?? product.id),
      toolFindingId: `${product.id}|${vulnerabilityId}`,
      what: `Product: ${product.id}`,
    } satisfies Target,
  ];
}

function evidenceOf(status: string, statement: JsonObject, doc: VexDocument, what: string): string {
  return [
    `Status: ${status}`,
    asText(statement.justification) && `Justification: ${asText(statement.justification)}`,
    asText(statement.impact_statement) && `Impact statement: ${asText(statement.impact_statement)}`,
    asText(statement.action_statement) && `Action statement: ${asText(statement.action_statement)}`,
    asText(statement.status_notes) && `Status notes: ${asText(statement.status_notes)}`,
    what,
    asText(statement.timestamp) && `Statement timestamp: ${asText(statement.timestamp)}`,
    doc.author && `Author: ${doc.author}`,
    doc.id && `VEX document: ${doc.id}`,
  ]
    .filter(Boolean)
    .join('\n');
}

export type StatementResult =
  | { kind: 'findings'; findings: FindingRecord[]; unknownStatus: boolean }
  | { kind: 'skipped' };

/**
 * One statement as findings: one per product (and subcomponent), so a decision about one product
 * never closes a sibling's finding. A status OpenVEX does not define is read as
 * under_investigation: open, as an unknown status must not suppress a real exposure.
 */
export function statementFindings(statement: JsonObject, doc: VexDocument): StatementResult {
  const vulnerability = vulnerabilityOf(statement.vulnerability);
  const rawStatus = asText(statement.status)?.toLowerCase();
  const productList = products(statement.products);
  if (!vulnerability || !rawStatus || productList.length === 0) return { kind: 'skipped' };
  const known = STATUSES.has(rawStatus);
  const status: VexStatus = known ? (rawStatus as VexStatus) : 'under_investigation';
  const ref: VulnerabilityRef = {
    ruleId: vulnerability.id,
    title: vulnerability.id,
    ...vulnerabilityIds(vulnerability.id, vulnerability.aliases),
    description: vulnerability.description,
    references: vulnerability.url ? [vulnerability.url] : undefined,
  };
  const state = statusState(status, statement);
  const shared = products(statement.subcomponents, 1);
  const findings = productList
    .flatMap((product) => targets(product, shared, vulnerability.id, doc))
    .map<FindingRecord>((t) => ({
      type: 'finding',
      asset: t.asset,
      vulnerability: ref,
      location: t.location,
      severity: OPENVEX_SEVERITY[status],
      evidence: evidenceOf(rawStatus, statement, doc, t.what),
      toolFindingId: t.toolFindingId,
      state,
    }));
  return { kind: 'findings', findings, unknownStatus: !known };
}
