/**
 * sslscan XML reports (`sslscan --xml=file`, rbsec/sslscan 1.x and 2.x):
 * `<document> <ssltest host port> <protocol|heartbleed|cipher|renegotiation|compression|certificate>`.
 *
 * - Asset: a Host from the test's `host` (the address sslscan connected to); location: the port
 *   (TCP). One finding per weakness of each <ssltest>:
 *   - Heartbleed: one finding (CVE-2014-0160) naming every protocol version found vulnerable;
 *   - a cipher the server accepts (`status` "accepted" or "preferred") whose `strength` is
 *     "null", "anonymous", "weak" or "medium": one finding per cipher and protocol version. A
 *     cipher with another status (a hand-edited "not accepted") is not offered, so not reported;
 *   - a protocol sslscan 2.x lists as enabled that is obsolete: SSLv2, SSLv3, TLSv1.0, TLSv1.1;
 *   - insecure renegotiation (`supported="1" secure="0"`) and TLS compression (CRIME).
 *   Certificate checks (expired, self-signed) are not imported: DefectDojo does not report them
 *   either.
 * - Rule ids: "heartbleed", "weak-cipher" (the cipher is the location's evidence and in the
 *   title), "obsolete-protocol-<version>", "insecure-renegotiation", "tls-compression".
 *
 * Severity — see SSLSCAN_SEVERITY:
 *
 * | sslscan result                                | Severity |
 * |-----------------------------------------------|----------|
 * | heartbleed vulnerable="1"                     | High     |
 * | cipher strength "null" or "anonymous"         | High     |
 * | cipher strength "weak"                        | Medium   |
 * | cipher strength "medium"                      | Low      |
 * | SSLv2 or SSLv3 enabled                        | High     |
 * | TLSv1.0 or TLSv1.1 enabled                    | Medium   |
 * | insecure renegotiation                        | Medium   |
 * | TLS compression supported (CRIME)             | Medium   |
 */
import type { Readable } from 'node:stream';
import { ReportError } from '../../parsing/report-error.js';
import { children, type XmlAncestor, type XmlElement, xmlElements } from '../../parsing/xml.js';
import { textLimits } from '../common/limits.js';
import { hostAsset, portLocation, portNumber } from '../common/network-target.js';
import { peekStart } from '../common/stream-start.js';
import { tidyRecord } from '../common/tidy-record.js';
import type {
  AssetRef,
  FindingRecord,
  Importer,
  ImportRecord,
  LocationRef,
  ParseContext,
  Severity,
  VulnerabilityRef,
} from '../types.js';

export const SSLSCAN_SEVERITY = {
  heartbleed: 'High',
  nullCipher: 'High',
  anonymousCipher: 'High',
  weakCipher: 'Medium',
  mediumCipher: 'Low',
  sslProtocol: 'High',
  oldTlsProtocol: 'Medium',
  insecureRenegotiation: 'Medium',
  compression: 'Medium',
} as const satisfies Record<string, Severity>;

const CIPHER_SEVERITY: Record<string, Severity> = {
  null: SSLSCAN_SEVERITY.nullCipher,
  anonymous: SSLSCAN_SEVERITY.anonymousCipher,
  weak: SSLSCAN_SEVERITY.weakCipher,
  medium: SSLSCAN_SEVERITY.mediumCipher,
};

const OFFERED = new Set(['accepted', 'preferred']);

interface Weakness {
  vulnerability: VulnerabilityRef;
  severity: Severity;
  evidence?: string;
}

function protocolName(type: string | undefined, version: string | undefined): string | undefined {
  if (type === 'ssl' && (version === '2' || version === '3')) return `SSLv${version}`;
  if (type === 'tls' && (version === '1.0' || version === '1.1')) return `TLSv${version}`;
  return undefined;
}

function weaknessesOf(test: XmlElement): Weakness[] {
  const found: Weakness[] = [];
  const bleeding = children(test, 'heartbleed')
    .filter((h) => h.attributes.vulnerable === '1')
    .map((h) => h.attributes.sslversion ?? '');
  if (bleeding.length > 0)
    found.push({
      vulnerability: {
        ruleId: 'heartbleed',
        title: 'Heartbleed',
        cveIds: ['CVE-2014-0160'],
        description:
          'The server is vulnerable to Heartbleed (CVE-2014-0160): an attacker can read server memory, including private keys.',
      },
      severity: SSLSCAN_SEVERITY.heartbleed,
      evidence: `Vulnerable: ${bleeding.filter(Boolean).join(', ')}`,
    });
  for (const cipher of children(test, 'cipher')) {
    const a = cipher.attributes;
    const severity = CIPHER_SEVERITY[a.strength?.toLowerCase() ?? ''];
    if (!severity || !OFFERED.has(a.status?.toLowerCase() ?? '')) continue;
    found.push({
      vulnerability: {
        ruleId: 'weak-cipher',
        title: `Weak cipher suite: ${a.cipher} (${a.sslversion})`,
        description: `The server accepts the ${a.strength} cipher suite ${a.cipher} (${a.bits ?? '?'} bits) over ${a.sslversion}.`,
      },
      severity,
      evidence: `${a.status} ${a.sslversion} ${a.bits ?? '?'} bits ${a.cipher} (strength: ${a.strength})`,
    });
  }
  for (const protocol of children(test, 'protocol')) {
    const name = protocolName(protocol.attributes.type, protocol.attributes.version);
    if (!name || protocol.attributes.enabled !== '1') continue;
    found.push({
      vulnerability: {
        ruleId: `obsolete-protocol-${name.toLowerCase()}`,
        title: `Obsolete protocol enabled: ${name}`,
        description: `The server offers ${name}, which is deprecated and has known weaknesses.`,
      },
      severity: name.startsWith('SSL') ? SSLSCAN_SEVERITY.sslProtocol : SSLSCAN_SEVERITY.oldTlsProtocol,
    });
  }
  for (const renegotiation of children(test, 'renegotiation')) {
    if (renegotiation.attributes.supported !== '1' || renegotiation.attributes.secure !== '0') continue;
    found.push({
      vulnerability: {
        ruleId: 'insecure-renegotiation',
        title: 'Insecure TLS renegotiation',
        cveIds: ['CVE-2009-3555'],
        description: 'The server supports insecure (client-initiated, unprotected) TLS renegotiation.',
      },
      severity: SSLSCAN_SEVERITY.insecureRenegotiation,
    });
  }
  for (const compression of children(test, 'compression')) {
    if (compression.attributes.supported !== '1') continue;
    found.push({
      vulnerability: {
        ruleId: 'tls-compression',
        title: 'TLS compression enabled (CRIME)',
        cveIds: ['CVE-2012-4929'],
        description: 'The server supports TLS compression, which exposes it to the CRIME attack.',
      },
      severity: SSLSCAN_SEVERITY.compression,
    });
  }
  return found;
}

async function* records(input: Readable, context: ParseContext): AsyncGenerator<ImportRecord> {
  const limits = textLimits(context);
  const pick = (name: string, ancestors: readonly XmlAncestor[]) => {
    if (ancestors.length === 0 && name !== 'document')
      throw new ReportError(`Not an sslscan XML report: the root element is <${name}>, not <document>.`);
    return name === 'ssltest' && ancestors.length === 1;
  };
  let warned = false;
  for await (const { element } of xmlElements(input, pick)) {
    const host = element.attributes.host ?? '';
    const asset: AssetRef | undefined = hostAsset(host);
    const port = portNumber(element.attributes.port ?? '443');
    if (!asset || !port) {
      if (!warned) context.warn('An <ssltest> without a host or port was skipped.');
      warned = true;
      continue;
    }
    const location: LocationRef = portLocation(port);
    for (const weakness of weaknessesOf(element))
      yield tidyRecord<FindingRecord>({ type: 'finding', asset, location, ...weakness }, limits);
  }
}

function detect(head: string): number {
  if (!/<document[\s>]/.test(head)) return 0;
  if (/<ssltest[\s>]/.test(head) || /web="https?:\/\/github\.com\/rbsec\/sslscan"/.test(head)) return 1;
  return /title="SSLScan Results"/.test(head) ? 0.9 : 0;
}

async function* parse(source: Readable, context: ParseContext): AsyncGenerator<ImportRecord> {
  const { first, input } = await peekStart(source);
  if (first === undefined) throw new ReportError('The report is empty: expected an sslscan XML report.');
  if (first !== '<') throw new ReportError(`Not an sslscan XML report: it starts with "${first}", not XML.`);
  try {
    yield* records(input, context);
  } finally {
    input.destroy();
  }
}

export const sslscanImporter: Importer = {
  format: 'sslscan',
  label: 'sslscan (XML report)',
  tool: 'sslscan',
  detect,
  parse,
};
