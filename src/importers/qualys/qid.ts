import { cveIdsIn } from '../../parsing/ids.js';
import { child, children, childText, type XmlElement } from '../../parsing/xml.js';
import { cvss2Of, cvss3VectorOf } from '../common/cvss-score.js';
import { htmlToText, linksIn } from '../common/html-text.js';
import type { TextLimits } from '../common/limits.js';
import { leadingScore, nonEmpty, parenthesised, unique, withoutUndefined } from '../common/report-values.js';
import type { VulnerabilityRef } from '../types.js';

/** What Qualys's knowledge base says of a QID, without its id. */
export type QidDetails = Omit<VulnerabilityRef, 'ruleId'>;

/**
 * CVSS v3 as Qualys writes it: the base as "8.1 (AV:N/AC:H/…)" or a bare "8.1", the temporal as
 * "7.4 (E:U/RL:U/RC:C)". The vector joins both sets of metrics, as Qualys shows them; its
 * version is the one the report names ("CVSS3.1" columns, CVSS3_VERSION), else 3.0 (what
 * "CVSS3" meant before Qualys added 3.1).
 */
export function qualysCvss3(
  base: string | undefined,
  temporal: string | undefined,
  version: '3.0' | '3.1',
): Pick<VulnerabilityRef, 'cvss3Vector' | 'cvss3Score'> {
  const baseVector = parenthesised(base);
  const temporalVector = parenthesised(temporal);
  const joined = baseVector && temporalVector ? `${baseVector}/${temporalVector}` : baseVector;
  return withoutUndefined({
    cvss3Vector: cvss3VectorOf(joined, version) ?? cvss3VectorOf(baseVector, version),
    cvss3Score: leadingScore(base),
  });
}

/**
 * CVSS v2 as Qualys writes it (CVSS_BASE, "CVSS Base"): a bare "6.4", or with its vector as
 * "6.4 (AV:N/AC:L/Au:N/C:P/I:P/A:N)"; a temporal vector ("(E:U/RL:OF/RC:C)") joins the base one.
 */
export function qualysCvss2(
  base: string | undefined,
  temporal: string | undefined,
): Pick<VulnerabilityRef, 'cvss2Vector' | 'cvss2Score'> {
  const baseVector = parenthesised(base);
  const temporalVector = parenthesised(temporal);
  const joined = baseVector && temporalVector ? `${baseVector}/${temporalVector}` : baseVector;
  const cvss2 = cvss2Of(leadingScore(base), joined);
  return cvss2.cvss2Vector || !baseVector ? cvss2 : cvss2Of(leadingScore(base), baseVector);
}

/** "3.1" when the text names CVSS 3.1, else "3.0". */
export function cvssVersionIn(text: string | undefined): '3.0' | '3.1' {
  return text?.includes('3.1') ? '3.1' : '3.0';
}

function ids(list: XmlElement | undefined, item: string): { id: string; url?: string }[] {
  if (!list) return [];
  return children(list, item).flatMap((entry) => {
    const id = childText(entry, 'ID');
    return id ? [{ id, url: childText(entry, 'URL') }] : [];
  });
}

/** Qualys texts are HTML fragments (<P>, <BR>, <A HREF>). */
function plain(html: string | undefined): string | undefined {
  return html ? htmlToText(html) || undefined : undefined;
}

/**
 * The details of a QID from a knowledge-base element: a VULN_DETAILS of the Asset Data Report
 * glossary (THREAT, IMPACT, CVSS3_SCORE) or a VULN/PRACTICE/INFO of a scan report (DIAGNOSIS,
 * CONSEQUENCE, CVSS3_BASE).
 */
export function qidDetails(element: XmlElement, limits: TextLimits): QidDetails {
  const threat = childText(element, 'THREAT') ?? childText(element, 'DIAGNOSIS');
  const impact = childText(element, 'IMPACT') ?? childText(element, 'CONSEQUENCE');
  const solution = childText(element, 'SOLUTION');
  const scores = child(element, 'CVSS3_SCORE') ?? element;
  const v2Scores = child(element, 'CVSS_SCORE') ?? element;
  const version = cvssVersionIn(childText(scores, 'CVSS3_VERSION') ?? childText(element, 'CVSS3_VERSION'));
  const cves = ids(child(element, 'CVE_ID_LIST'), 'CVE_ID');
  const bids = ids(child(element, 'BUGTRAQ_ID_LIST'), 'BUGTRAQ_ID');
  const vendor = ids(child(element, 'VENDOR_REFERENCE_LIST'), 'VENDOR_REFERENCE');
  const impactText = plain(impact);
  const description = [plain(threat), impactText && `Impact: ${impactText}`].filter(Boolean).join('\n\n');
  return withoutUndefined<QidDetails>({
    title: limits.field(childText(element, 'TITLE'), 'title') ?? '',
    cveIds: nonEmpty(unique([...cves.map((c) => c.id), element.attributes.cveid].flatMap(cveIdsIn))),
    aliases: nonEmpty(unique([...bids.map((b) => `BID:${b.id}`), ...vendor.map((v) => v.id)])),
    description: limits.field(description, 'description'),
    solution: limits.field(plain(solution), 'solution'),
    references: nonEmpty(
      unique([...vendor.map((v) => v.url), ...bids.map((b) => b.url), ...linksIn(`${threat} ${solution}`)]),
    ),
    ...qualysCvss2(childText(v2Scores, 'CVSS_BASE'), childText(v2Scores, 'CVSS_TEMPORAL')),
    ...qualysCvss3(childText(scores, 'CVSS3_BASE'), childText(scores, 'CVSS3_TEMPORAL'), version),
  });
}

/** QIDs 82023 and 82004 list the open TCP and UDP services of a host. */
export const SERVICE_LIST_QIDS: Readonly<Record<string, 'tcp' | 'udp'>> = { '82023': 'tcp', '82004': 'udp' };

/**
 * The ports of a service list result, a tab-separated table "Port, IANA Assigned
 * Ports/Services, Description, Service Detected, …": the detected name wins over IANA's.
 */
export function serviceTable(result: string | undefined): { port: number; name?: string }[] {
  const rows: { port: number; name?: string }[] = [];
  for (const line of (result ?? '').split('\n')) {
    const cells = line.split('\t').map((cell) => cell.trim());
    const port = Number(cells[0]);
    if (!/^\d+$/.test(cells[0] ?? '') || port <= 0 || port > 65535) continue;
    const name = [cells[3], cells[1]].find((n) => n && n.toLowerCase() !== 'unknown');
    rows.push({ port, ...(name ? { name: name.toLowerCase() } : {}) });
  }
  return rows;
}
