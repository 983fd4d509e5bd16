/**
 * Nikto web server scanner reports: the XML report (`-Format xml`, both the old layout with
 * <scandetails> under the root and the nxmlversion 1.2 layout, where Nikto may nest one
 * <niktoscan> in another) and the JSON report (`-Format json`: a list of hosts, or one host
 * object, each with `vulnerabilities`). The first significant character tells XML from JSON.
 *
 * - One finding per reported item (DefectDojo also makes one per item; it merges items with the
 *   same text, which never happens in its samples).
 * - Asset: the scanned site as a WebApplication, `scheme://host[:port]` (default port left out),
 *   from `sitename` (XML) or from `host` and `port` (JSON: https for 443 and 8443, else http).
 * - Location: the item's URL (the site and the item's `uri`/`url`).
 * - Rule id: Nikto's test id (`id`, e.g. "999100"); the OSVDB id, when not 0, is an alias
 *   "OSVDB-…" and its link a reference. Title: the message's first sentence; description: the
 *   whole message; evidence: the HTTP method.
 *
 * Severity — see NIKTO_SEVERITY. Nikto rates nothing; like DefectDojo, an item tied to an OSVDB
 * entry (a known vulnerability) is Medium, anything else (headers, banners, files found) Info:
 *
 * | Nikto item                      | Severity |
 * |---------------------------------|----------|
 * | OSVDB id present and not 0      | Medium   |
 * | no OSVDB id (or 0)              | Info     |
 */
import type { Readable } from 'node:stream';
import { type JsonPath, jsonValues } from '../../parsing/json.js';
import { asArray, asObject, asText } from '../../parsing/json-fields.js';
import { ReportError } from '../../parsing/report-error.js';
import { shapeCheck } from '../../parsing/shape.js';
import { childText, type XmlAncestor, type XmlElement, xmlElements } from '../../parsing/xml.js';
import { type TextLimits, textLimits } from '../common/limits.js';
import { webUrl } from '../common/network-target.js';
import { unique } from '../common/report-values.js';
import { peekStart } from '../common/stream-start.js';
import { tidyRecord } from '../common/tidy-record.js';
import type { FindingRecord, Importer, ImportRecord, ParseContext, Severity } from '../types.js';

/** Where the reader goes through the report: each must be of its kind, or the report fails there. */
const NIKTO_SHAPE = shapeCheck('a Nikto JSON report', [
  ['', 'object|array', 'a host object (or a list of hosts)'],
  ['[]', 'object', 'a host object'],
  ['vulnerabilities', 'array?', 'a list of vulnerabilities'],
  ['[].vulnerabilities', 'array?', 'a list of vulnerabilities'],
]);

export const NIKTO_SEVERITY: Readonly<Record<'osvdb' | 'other', Severity>> = {
  osvdb: 'Medium',
  other: 'Info',
};

interface NiktoItem {
  id?: string;
  osvdb?: string;
  osvdbLink?: string;
  method?: string;
  uri?: string;
  message?: string;
  references?: string;
}

/** The first sentence of a message (Nikto writes one or two), as DefectDojo titles items. */
function firstSentence(message: string): string {
  const match = /^(.+?[.?!])\s/.exec(message);
  const sentence = (match?.[1] ?? message).trim();
  return sentence.length > 300 ? `${sentence.slice(0, 299)}…` : sentence;
}

function hasOsvdb(id: string | undefined): id is string {
  return !!id && /^\d+$/.test(id) && Number(id) > 0;
}

function findingOf(site: URL, item: NiktoItem, limits: TextLimits): FindingRecord | undefined {
  const message = item.message?.trim();
  if (!message) return undefined;
  const osvdb = hasOsvdb(item.osvdb) ? item.osvdb : undefined;
  let location = site.href;
  const uri = item.uri?.trim();
  if (uri) {
    try {
      location = new URL(uri, site).href;
    } catch {
      location = site.origin + (uri.startsWith('/') ? uri : `/${uri}`);
    }
  }
  const references = unique([
    ...(osvdb && item.osvdbLink ? [item.osvdbLink] : []),
    ...(item.references ?? '').split(/[\s,]+/).filter((r) => /^https?:\/\//i.test(r)),
  ]);
  return tidyRecord<FindingRecord>(
    {
      type: 'finding',
      asset: { kind: 'WebApplication', url: site.origin },
      vulnerability: {
        ruleId: item.id?.trim() || (osvdb ? `OSVDB-${osvdb}` : 'nikto'),
        title: firstSentence(message),
        description: message,
        ...(osvdb ? { aliases: [`OSVDB-${osvdb}`] } : {}),
        ...(references.length > 0 ? { references } : {}),
      },
      location: { kind: 'Url', url: location },
      severity: osvdb ? NIKTO_SEVERITY.osvdb : NIKTO_SEVERITY.other,
      ...(item.method ? { evidence: `Method: ${item.method}` } : {}),
    },
    limits,
  );
}

// ---- XML ----

function xmlSite(details: XmlAncestor | undefined): URL {
  const a = details?.attributes ?? {};
  const named = webUrl(a.sitename) ?? webUrl(a.siteip);
  if (named) return named;
  const host = a.targethostname || a.hostheader || a.targetip;
  if (!host) throw new ReportError('Not a Nikto XML report: a <scandetails> element names no target.');
  const port = Number(a.targetport) || 80;
  const scheme = port === 443 || port === 8443 ? 'https' : 'http';
  const url = webUrl(`${scheme}://${host}:${port}/`);
  if (!url) throw new ReportError(`Not a Nikto XML report: the target "${host}" is not a host name.`);
  return url;
}

function xmlItem(element: XmlElement): NiktoItem {
  return {
    id: element.attributes.id,
    osvdb: element.attributes.osvdbid,
    osvdbLink: element.attributes.osvdblink,
    method: element.attributes.method,
    uri: childText(element, 'uri'),
    message: childText(element, 'description'),
    references: childText(element, 'references'),
  };
}

async function* xmlRecords(input: Readable, limits: TextLimits): AsyncGenerator<ImportRecord> {
  const pick = (name: string, ancestors: readonly XmlAncestor[]) => {
    if (ancestors.length === 0 && name !== 'niktoscan')
      throw new ReportError(`Not a Nikto XML report: the root element is <${name}>, not <niktoscan>.`);
    return name === 'item' && ancestors[ancestors.length - 1]?.name === 'scandetails';
  };
  for await (const { element, ancestors } of xmlElements(input, pick)) {
    const finding = findingOf(xmlSite(ancestors[ancestors.length - 1]), xmlItem(element), limits);
    if (finding) yield finding;
  }
}

// ---- JSON ----

interface JsonHost {
  host?: string;
  port?: string;
}

function jsonSite(host: JsonHost): URL {
  if (!host.host) throw new ReportError('Not a Nikto JSON report: vulnerabilities come before the "host".');
  const port = Number(host.port) || 80;
  const scheme = port === 443 || port === 8443 ? 'https' : 'http';
  const name = host.host.includes(':') && !host.host.startsWith('[') ? `[${host.host}]` : host.host;
  const url = webUrl(`${scheme}://${name}:${port}/`);
  if (!url) throw new ReportError(`Not a Nikto JSON report: the host "${host.host}" is not a host name.`);
  return url;
}

async function* jsonRecords(input: Readable, limits: TextLimits): AsyncGenerator<ImportRecord> {
  // A list of hosts ([0, "host"]) or one host object (["host"]).
  const hostPart = (path: JsonPath) => (typeof path[0] === 'number' ? path.slice(1) : path);
  const hosts = new Map<string | number, JsonHost>();
  let sawHost = false;
  const pick = (path: JsonPath) => {
    const rest = hostPart(path);
    if (rest.length === 1) return rest[0] === 'host' || rest[0] === 'port';
    return rest.length === 2 && rest[0] === 'vulnerabilities' && typeof rest[1] === 'number';
  };
  for await (const { path, value } of jsonValues(input, pick, { onValue: NIKTO_SHAPE })) {
    const key = typeof path[0] === 'number' ? path[0] : 'single';
    const host = hosts.get(key) ?? {};
    hosts.set(key, host);
    const rest = hostPart(path);
    if (rest.length === 1) {
      sawHost = true;
      host[rest[0] as 'host' | 'port'] = asText(value);
      continue;
    }
    const v = asObject(value);
    if (!v) throw new ReportError('Not a Nikto JSON report: a vulnerability is not an object.');
    const finding = findingOf(
      jsonSite(host),
      {
        id: asText(v.id),
        osvdb: asText(v.OSVDB),
        method: asText(v.method),
        uri: asText(v.url),
        message: asText(v.msg),
        references:
          asArray(v.references).length > 0
            ? asArray(v.references).map(asText).join(' ')
            : asText(v.references),
      },
      limits,
    );
    if (finding) yield finding;
    // Only the current host's context is needed; earlier hosts are forgotten.
    for (const k of hosts.keys()) if (k !== key) hosts.delete(k);
  }
  if (!sawHost)
    throw new ReportError(
      'Not a Nikto JSON report: expected a list of hosts with "host", "port" and "vulnerabilities".',
    );
}

// ---- importer ----

function detect(head: string): number {
  const text = head.replace(/^\uFEFF/, '').trimStart();
  if (text.startsWith('<')) {
    if (/<!DOCTYPE\s+niktoscan\b/.test(text) || /<niktoscan[\s>]/.test(text)) return 1;
    return 0;
  }
  if (!text.startsWith('[') && !text.startsWith('{')) return 0;
  const shape = /"host"\s*:/.test(text) && /"port"\s*:/.test(text) && /"vulnerabilities"\s*:\s*\[/.test(text);
  if (!shape) return 0;
  return /"msg"\s*:/.test(text) && /"method"\s*:/.test(text) ? 0.9 : /"banner"\s*:/.test(text) ? 0.8 : 0.3;
}

async function* parse(source: Readable, context: ParseContext): AsyncGenerator<ImportRecord> {
  const { first, input } = await peekStart(source);
  if (first === undefined) throw new ReportError('The report is empty: expected a Nikto XML or JSON report.');
  if (first !== '<' && first !== '{' && first !== '[')
    throw new ReportError(`Not a Nikto report: it starts with "${first}", neither XML nor JSON.`);
  const limits = textLimits(context);
  try {
    yield* first === '<' ? xmlRecords(input, limits) : jsonRecords(input, limits);
  } finally {
    input.destroy();
  }
}

export const niktoImporter: Importer = {
  format: 'nikto',
  label: 'Nikto (XML or JSON report)',
  tool: 'Nikto',
  detect,
  parse,
};
