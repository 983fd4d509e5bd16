import { cweId, cweIdsIn } from '../../parsing/ids.js';
import { asText, texts } from '../../parsing/json-fields.js';
import { ReportError } from '../../parsing/report-error.js';
import { cvss3VectorOf, cvss4VectorOf, cvssScoreOf } from '../common/cvss-score.js';
import type { TextLimits } from '../common/limits.js';
import { unique } from '../common/report-values.js';
import { tidyRecord } from '../common/tidy-record.js';
import { vulnerabilityIds } from '../common/vulnerability-ids.js';
import type {
  FindingRecord,
  LocationRef,
  ParseContext,
  Severity,
  StateRef,
  VulnerabilityRef,
} from '../types.js';
import { endpointTarget } from './endpoint.js';
import { type Fields, textsOf } from './fields.js';
import { readGenericSeverity } from './severity.js';

/**
 * The asset of findings that name no endpoint: the report does not say which project it is
 * about, so they are filed under the finding's `service` when it has one, else under this
 * CodeRepository (the import should let people name it).
 */
export const GENERIC_WORKSPACE = 'Generic Findings Import workspace';

/** One finding of the report: its fields, and where it is for messages. */
export interface GenericItem {
  fields: Fields;
  /** "findings[3]" or "line 4". */
  where: string;
  line?: number;
}

/** What was let pass but should be said once, at the end. */
export class GenericNotes {
  private blankSeverities = 0;
  private readonly droppedPaths = new Set<string>();
  private readonly unreadableEndpoints = new Set<string>();

  blankSeverity(): void {
    this.blankSeverities += 1;
  }

  droppedPath(endpoint: string): void {
    this.droppedPaths.add(endpoint);
  }

  unreadableEndpoint(endpoint: unknown): void {
    this.unreadableEndpoints.add(typeof endpoint === 'string' ? endpoint : JSON.stringify(endpoint));
  }

  report(context: ParseContext): void {
    if (this.blankSeverities > 0)
      context.warn(`${this.blankSeverities} findings give no severity; they were filed as Info.`);
    if (this.droppedPaths.size > 0)
      context.warn(
        `Endpoints without a scheme were read as hosts, their paths left out: ${sample(this.droppedPaths)}.`,
      );
    if (this.unreadableEndpoints.size > 0)
      context.warn(`Endpoints that name no host were left out: ${sample(this.unreadableEndpoints)}.`);
  }
}

function sample(values: Set<string>): string {
  const shown = [...values].slice(0, 5).join(', ');
  return values.size > 5 ? `${shown} and ${values.size - 5} more` : shown;
}

/** The findings of one generic finding: one per endpoint it names, or one when it names none. */
export function genericFindings(item: GenericItem, limits: TextLimits, notes: GenericNotes): FindingRecord[] {
  const { fields } = item;
  const title = fields.text('title');
  if (!title) throw new ReportError(`The finding at ${item.where} has no title.`, item.line);
  const severity = severityOf(item, title, notes);
  const vulnerability = vulnerabilityOf(fields, title);
  const targets = targetsOf(fields, notes);
  const places = targets.length > 0 ? targets : [undefined];
  const toolId = fields.text('uniqueidfromtool');
  const state = stateOf(fields);
  return places.map((target, i) =>
    tidyRecord(
      {
        type: 'finding',
        asset: target?.asset ?? {
          kind: 'CodeRepository',
          repository: fields.text('service') ?? GENERIC_WORKSPACE,
        },
        vulnerability,
        location: target && target.location.kind !== 'None' ? target.location : codeLocation(fields),
        severity,
        evidence: evidenceOf(fields),
        ...(toolId ? { toolFindingId: places.length > 1 ? `${toolId}#${i + 1}` : toolId } : {}),
        ...(state ? { state } : {}),
        fixedIn: fields.text('fixversion'),
      },
      limits,
    ),
  );
}

function severityOf(item: GenericItem, title: string, notes: GenericNotes): Severity {
  const reading = readGenericSeverity(item.fields.text('severity'));
  if ('severity' in reading) return reading.severity;
  if ('blank' in reading) {
    notes.blankSeverity();
    return 'Info';
  }
  throw new ReportError(
    `The finding at ${item.where} ("${title}") has severity "${reading.unknown}"; the generic format allows Critical, High, Medium, Low and Info.`,
    item.line,
  );
}

function vulnerabilityOf(fields: Fields, title: string): VulnerabilityRef {
  const ruleId = fields.text('vulnidfromtool') ?? title;
  const ids = [
    ...texts(fields.list('cve')),
    ...textsOf(fields.list('vulnerabilityids'), 'vulnerability_id'),
    ...texts(fields.list('vulnerabilityid')),
  ];
  const description = fields.text('description');
  const impact = fields.text('impact');
  const cvss4Vector = cvss4VectorOf(fields.text('cvssv4'));
  return {
    ruleId,
    title,
    ...vulnerabilityIds(ruleId, ids),
    description: [description, impact && `Impact: ${impact}`].filter(Boolean).join('\n\n'),
    solution: fields.text('mitigation'),
    // The primary CWE first, then the others, DefectDojo's `cwe` and `cwes`.
    cweIds: unique([...fields.list('cwe', 'cweid'), ...fields.list('cwes', 'cweids')].map(cweOf)),
    cvss3Vector: cvss3VectorOf(fields.text('cvssv3')),
    cvss3Score: cvssScoreOf(fields.get('cvssv3score')),
    ...(cvss4Vector ? { cvss4Vector } : {}),
    cvss4Score: cvssScoreOf(fields.get('cvssv4score')),
    references: referencesOf(fields),
    publishedAt: dateOf(fields.text('publishdate')),
  };
}

/** 79, "79", "CWE-79" or "cwe-079" as "CWE-79"; 0 (DefectDojo's "none") gives nothing. */
function cweOf(value: unknown): string | undefined {
  const text = asText(value);
  return cweIdsIn(text)[0] ?? cweId(text);
}

/** References as a list, or as text with one reference a line. */
function referencesOf(fields: Fields): string[] {
  const value = fields.get('references');
  if (Array.isArray(value)) return texts(value);
  return (asText(value) ?? '').split(/\r?\n/).map((line) => line.trim());
}

function targetsOf(fields: Fields, notes: GenericNotes) {
  const given = fields.get('endpoints');
  const endpoints = [...(Array.isArray(given) ? given : [given]), fields.text('url')].filter(
    (e) => e !== undefined && e !== null && e !== '',
  );
  const parameter = fields.text('param', 'parameter');
  return endpoints.flatMap((endpoint) => {
    const target = endpointTarget(endpoint, parameter);
    if (!target) notes.unreadableEndpoint(endpoint);
    else if (target.droppedPath) notes.droppedPath(target.droppedPath);
    return target ? [target] : [];
  });
}

/** Where in the code: the component (a dependency) when named, else the file and line. */
function codeLocation(fields: Fields): LocationRef {
  const packageName = fields.text('componentname');
  if (packageName) return { kind: 'Package', packageName, packageVersion: fields.text('componentversion') };
  const filePath = fields.text('filepath');
  if (!filePath) return { kind: 'None' };
  const line = Number(fields.text('line'));
  return { kind: 'File', filePath, ...(Number.isInteger(line) && line > 0 ? { line } : {}) };
}

/** Steps to reproduce and the payload, when the tool gives them. */
function evidenceOf(fields: Fields): string | undefined {
  const steps = fields.text('stepstoreproduce');
  const payload = fields.text('payload');
  const parts = [steps && `Steps to reproduce:\n${steps}`, payload && `Payload: ${payload}`].filter(Boolean);
  return parts.length > 0 ? parts.join('\n\n') : undefined;
}

/**
 * The decision the report carries, the most deliberate first: false positive → FalsePositive;
 * risk accepted → RiskAccepted; out of scope → RiskAccepted (someone chose not to act on it);
 * mitigated → Fixed (with its date); inactive (`active` false) → Fixed, as DefectDojo closes
 * inactive findings. `verified`, `duplicate` and `under_review` leave the finding open.
 */
function stateOf(fields: Fields): StateRef | undefined {
  if (fields.flag('falsep', 'falsepositive'))
    return { state: 'FalsePositive', reason: 'Marked as a false positive in the report.' };
  if (fields.flag('riskaccepted')) return { state: 'RiskAccepted', reason: 'Risk accepted in the report.' };
  if (fields.flag('outofscope'))
    return { state: 'RiskAccepted', reason: 'Marked out of scope in the report.' };
  if (fields.flag('ismitigated')) {
    const on = dateOf(fields.text('mitigated', 'mitigateddate'));
    return { state: 'Fixed', reason: `Mitigated${on ? ` on ${on}` : ''}, as the report says.` };
  }
  if (fields.flag('active') === false) return { state: 'Fixed', reason: 'Marked inactive in the report.' };
  return undefined;
}

/**
 * A date as "YYYY-MM-DD" from ISO text ("2024-02-24", "2024-02-24T11:02:11Z") or from
 * "MM/DD/YYYY", read day first when the month cannot be (DefectDojo's samples write both
 * "01/30/2018" and "28/02/2021"; its date parser reads them the same way).
 */
export function dateOf(text: string | undefined): string | undefined {
  const value = text?.trim() ?? '';
  const iso = /^(\d{4})-(\d{2})-(\d{2})(?![\d])/.exec(value);
  if (iso) return validDate(iso[1]!, iso[2]!, iso[3]!);
  const slashed = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(value);
  if (!slashed) return undefined;
  const [, a, b, year] = slashed as unknown as [string, string, string, string];
  return validDate(year, a, b) ?? validDate(year, b, a);
}

function validDate(year: string, month: string, day: string): string | undefined {
  const text = `${year}-${month.padStart(2, '0')}-${day.padStart(2, '0')}`;
  const date = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(text) ? text : undefined;
}
