import net from 'node:net';
import { cveIdsIn, cweIdsIn } from '../../parsing/ids.js';
import { childText, type XmlElement } from '../../parsing/xml.js';
import { htmlToText, linksIn } from '../common/html-text.js';
import type { TextLimits } from '../common/limits.js';
import type { AssetRef, FindingRecord, LocationRef, ParseContext, Severity } from '../types.js';
import { issueEvidence } from './evidence.js';

/** Burp's severities, as it spells them, to ours. Burp has no Critical. */
export const BURP_SEVERITY = {
  High: 'High',
  Medium: 'Medium',
  Low: 'Low',
  Information: 'Info',
} as const satisfies Record<string, Severity>;

/** Burp gives every issue raised by an extension this one type; the name tells them apart. */
const EXTENSION_ISSUE_TYPE = '134217728';

function severityOf(text: string | undefined): { severity: Severity; falsePositive: boolean } | undefined {
  const value = (text ?? '').trim().toLowerCase();
  if (value === 'false positive') return { severity: 'Info', falsePositive: true };
  const entry = Object.entries(BURP_SEVERITY).find(([burp]) => burp.toLowerCase() === value);
  if (entry) return { severity: entry[1], falsePositive: false };
  return value === 'info' ? { severity: 'Info', falsePositive: false } : undefined;
}

/**
 * The input an issue is about, from the location's trailing bracket: "b_id" for
 * "/basket.jsp [b_id cookie]", "Referer" for "[Referer HTTP header]"; other descriptions
 * ("URL path filename", "name XML attribute within the name parameter") are kept whole.
 */
export function parameterOf(location: string | undefined): string | undefined {
  if (!location?.endsWith(']')) return undefined;
  const open = location.lastIndexOf(' [');
  if (open === -1) return undefined;
  const inside = location.slice(open + 2, -1).trim();
  const named = /^(\S+) (?:parameter|cookie)$/.exec(inside) ?? /^(\S+) HTTP header$/.exec(inside);
  return named ? named[1] : inside || undefined;
}

/** scheme://host[:port] of the issue's `<host>`, without a trailing slash. */
function siteUrl(host: string): string {
  return host.trim().replace(/\/+$/, '');
}

function issueAsset(issue: XmlElement, site: string): AssetRef {
  const ip = issue.children.find((c) => c.name === 'host')?.attributes.ip?.trim();
  return { kind: 'WebApplication', url: site, ...(ip && net.isIP(ip) ? { ipAddresses: [ip] } : {}) };
}

function issueLocation(issue: XmlElement, site: string, limits: TextLimits): LocationRef {
  const path = childText(issue, 'path') ?? '';
  const parameter = limits.field(parameterOf(childText(issue, 'location')), 'parameter');
  const url = limits.field(site + (path.startsWith('/') || path === '' ? path : `/${path}`), 'URL');
  return { kind: 'Url', url, ...(parameter ? { parameter } : {}) };
}

/** Plain text of an HTML child, or undefined when empty. */
function htmlChild(issue: XmlElement, name: string): string | undefined {
  const html = childText(issue, name);
  return html ? htmlToText(html) || undefined : undefined;
}

/** One Burp `<issue>` as a finding; undefined (with a warning) when it lacks its host or type. */
export function issueFinding(
  issue: XmlElement,
  context: ParseContext,
  limits: TextLimits,
): FindingRecord | undefined {
  const host = childText(issue, 'host');
  const type = childText(issue, 'type');
  const name = childText(issue, 'name') ?? `Burp issue ${type}`;
  if (!host || !type) {
    context.warn(`An issue without its ${host ? 'type' : 'host'} was skipped ("${name.slice(0, 100)}").`);
    return undefined;
  }
  const rating = severityOf(childText(issue, 'severity'));
  if (!rating) context.warn(`Unknown Burp severity "${childText(issue, 'severity')}"; read as Info.`);
  const site = limits.field(siteUrl(host), 'URL') ?? host;
  const background = htmlChild(issue, 'issueBackground');
  const detail = childText(issue, 'issueDetail');
  const remediation = htmlChild(issue, 'remediationBackground');
  const remediationDetail = htmlChild(issue, 'remediationDetail');
  const cveIds = cveIdsIn(detail);
  const cweIds = cweIdsIn(childText(issue, 'vulnerabilityClassifications'));
  const references = linksIn(childText(issue, 'references') ?? '');
  const serial = limits.field(childText(issue, 'serialNumber'), 'tool finding id');
  return {
    type: 'finding',
    asset: issueAsset(issue, site),
    vulnerability: {
      ruleId: limits.field(type === EXTENSION_ISSUE_TYPE ? `${type}:${name}` : type, 'rule id') ?? type,
      title: limits.field(name, 'title') ?? type,
      ...(cveIds.length > 0 ? { cveIds } : {}),
      description: limits.field(background ?? (detail ? htmlToText(detail) : undefined), 'description'),
      solution: limits.field(remediation ?? remediationDetail, 'solution'),
      ...(cweIds.length > 0 ? { cweIds } : {}),
      ...(references.length > 0 ? { references: references.map((r) => limits.field(r, 'reference')!) } : {}),
    },
    location: issueLocation(issue, site, limits),
    severity: rating?.severity ?? 'Info',
    evidence: limits.evidence(issueEvidence(issue, context.maxEvidenceChars)),
    ...(serial ? { toolFindingId: serial } : {}),
    // The issue's own remedy, when Burp gives one besides the general remediation.
    ...(remediation && remediationDetail ? { fixedIn: limits.field(remediationDetail, 'remedy') } : {}),
    ...(rating?.falsePositive
      ? { state: { state: 'FalsePositive', reason: 'Marked as a false positive in Burp Suite.' } }
      : {}),
  };
}
