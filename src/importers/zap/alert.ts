import { cweId } from '../../parsing/ids.js';
import { htmlToText } from '../common/html-text.js';
import type { TextLimits } from '../common/limits.js';
import type { AssetRef, FindingRecord, ParseContext, Severity, VulnerabilityRef } from '../types.js';

/** A `<site>` (XML attributes) or site object (JSON `@name`, `@host`, `@port`, `@ssl`). */
export interface ZapSite {
  name?: string;
  host?: string;
  port?: string;
  ssl?: string;
}

/** One place an alert was raised: the same fields in XML, JSON and their "plus" variants. */
export interface ZapInstance {
  id?: string;
  uri?: string;
  method?: string;
  param?: string;
  attack?: string;
  evidence?: string;
  otherinfo?: string;
  requestHeader?: string;
  requestBody?: string;
  responseHeader?: string;
  responseBody?: string;
}

/** An `<alertitem>` or alert object, read from either layout. All values are ZAP's text. */
export interface ZapAlert {
  pluginid?: string;
  alertRef?: string;
  alert?: string;
  name?: string;
  riskcode?: string;
  confidence?: string;
  riskdesc?: string;
  desc?: string;
  solution?: string;
  otherinfo?: string;
  reference?: string;
  cweid?: string;
  instances: ZapInstance[];
}

/** ZAP's risk codes to our severities. ZAP has no Critical. */
export const ZAP_SEVERITY = {
  0: 'Info',
  1: 'Low',
  2: 'Medium',
  3: 'High',
} as const satisfies Record<number, Severity>;

/** The risk names in `riskdesc` ("Medium (High)"), used when `riskcode` is missing. */
const RISK_NAMES: Record<string, Severity> = {
  informational: 'Info',
  info: 'Info',
  low: 'Low',
  medium: 'Medium',
  high: 'High',
};

function severityOf(alert: ZapAlert): Severity | undefined {
  const code = alert.riskcode?.trim();
  if (code && code in ZAP_SEVERITY) return ZAP_SEVERITY[Number(code) as keyof typeof ZAP_SEVERITY];
  const word = alert.riskdesc?.trim().split(/\s/, 1)[0]?.toLowerCase();
  return word ? RISK_NAMES[word] : undefined;
}

/** Default ports are left out, as browsers and Rampart's URL identity do. */
const DEFAULT_PORTS: Record<string, string> = { http: '80', https: '443' };

/** scheme://host[:port] of a site: from its host, port and ssl flag, else from its name. */
export function siteUrl(site: ZapSite): string | undefined {
  const host = site.host?.trim().toLowerCase();
  if (host) {
    const secure = site.ssl !== undefined ? site.ssl.trim() === 'true' : /^https:/i.test(site.name ?? '');
    const scheme = secure ? 'https' : 'http';
    const bracketed = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
    const port = site.port?.trim();
    const portPart = port && /^\d{1,5}$/.test(port) && port !== DEFAULT_PORTS[scheme] ? `:${port}` : '';
    return `${scheme}://${bracketed}${portPart}`;
  }
  return originOf(site.name);
}

function originOf(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const parsed = new URL(url.trim());
    return /^https?:$/.test(parsed.protocol) ? parsed.origin : undefined;
  } catch {
    return undefined;
  }
}

/** http(s) URLs in a text; ZAP 2.9 glued its reference links together without a separator. */
export function urlsIn(text: string): string[] {
  const found = text.match(/https?:\/\/(?:(?!https?:\/\/)[^\s<>"'])+/gi) ?? [];
  return [...new Set(found.map((url) => url.replace(/[.,;]+$/, '')))];
}

/**
 * The weakness an alert describes. The rule id is the plugin id, or the alert reference when it
 * names one alert of a plugin that raises several ("10020-1" Missing Anti-clickjacking Header vs
 * "10020-2" Multiple X-Frame-Options Header Entries), so different weaknesses never share an id.
 */
function alertVulnerability(alert: ZapAlert, limits: TextLimits): VulnerabilityRef | undefined {
  const pluginId = alert.pluginid?.trim();
  const alertRef = alert.alertRef?.trim();
  const ruleId = limits.field(
    alertRef && (!pluginId || alertRef.startsWith(`${pluginId}-`)) ? alertRef : pluginId,
    'rule id',
  );
  if (!ruleId) return undefined;
  const title = limits.field(alert.alert ?? alert.name, 'title') ?? `ZAP alert ${ruleId}`;
  const cwe = cweId(alert.cweid);
  const references = urlsIn(htmlToText(alert.reference ?? '')).map((url) => limits.field(url, 'reference')!);
  return {
    ruleId,
    title,
    description: limits.field(htmlToText(alert.desc ?? ''), 'description'),
    solution: limits.field(htmlToText(alert.solution ?? ''), 'solution'),
    ...(cwe ? { cweIds: [cwe] } : {}),
    ...(references.length > 0 ? { references } : {}),
  };
}

/** Parts longer than the evidence limit are cut before joining, so no huge string is built. */
function instanceEvidence(alert: ZapAlert, instance: ZapInstance, max: number): string {
  const line = (label: string, value: string | undefined) =>
    value?.trim() ? `${label}: ${value.trim().slice(0, max)}` : '';
  const block = (label: string, head: string | undefined, body: string | undefined) => {
    const text = [head?.trim(), body?.trim()].filter(Boolean).join('\n\n').slice(0, max);
    return text ? `${label}:\n${text.replace(/\r\n?/g, '\n')}` : '';
  };
  const otherInfo = instance.otherinfo ?? (alert.otherinfo ? htmlToText(alert.otherinfo) : undefined);
  const fields = [
    line('Method', instance.method),
    line('Parameter', instance.param),
    line('Attack', instance.attack),
    line('Evidence', instance.evidence),
    line('Other info', otherInfo),
  ];
  return [
    fields.filter(Boolean).join('\n'),
    block('Request', instance.requestHeader, instance.requestBody),
    block('Response', instance.responseHeader, instance.responseBody),
  ]
    .filter(Boolean)
    .join('\n\n');
}

function instanceAsset(
  site: string | undefined,
  instance: ZapInstance,
  limits: TextLimits,
): AssetRef | undefined {
  const url = limits.field(site ?? originOf(instance.uri), 'URL');
  return url ? { kind: 'WebApplication', url } : undefined;
}

/**
 * One finding per instance of an alert (an alert listed without instances gives one finding at
 * its site). Confidence 0 is ZAP's "False Positive" mark, kept as that state.
 */
export function* alertFindings(
  site: ZapSite,
  alert: ZapAlert,
  context: ParseContext,
  limits: TextLimits,
): Generator<FindingRecord> {
  const vulnerability = alertVulnerability(alert, limits);
  if (!vulnerability) {
    context.warn(
      `An alert without a plugin id was skipped ("${(alert.alert ?? alert.name ?? '').slice(0, 100)}").`,
    );
    return;
  }
  const severity = severityOf(alert);
  if (!severity) context.warn(`Alert ${vulnerability.ruleId} has no known risk code; read as Info.`);
  const url = siteUrl(site);
  const falsePositive = alert.confidence?.trim() === '0';
  const instances = alert.instances.length > 0 ? alert.instances : [{}];
  for (const instance of instances) {
    const asset = instanceAsset(url, instance, limits);
    if (!asset) {
      context.warn(`An instance of alert ${vulnerability.ruleId} without a site or URL was skipped.`);
      continue;
    }
    const parameter = limits.field(instance.param, 'parameter');
    const id = limits.field(instance.id, 'tool finding id');
    yield {
      type: 'finding',
      asset,
      vulnerability,
      location: {
        kind: 'Url',
        url: limits.field(instance.uri, 'URL') ?? asset.url,
        ...(parameter ? { parameter } : {}),
      },
      severity: severity ?? 'Info',
      evidence: limits.evidence(instanceEvidence(alert, instance, context.maxEvidenceChars)),
      ...(id ? { toolFindingId: id } : {}),
      ...(falsePositive
        ? { state: { state: 'FalsePositive', reason: 'Marked as a false positive in ZAP.' } }
        : {}),
    };
  }
}
