// The TLS checks of the catalogue (src/scanning/checks/tls.ts), judged from one probe's report.
// Pure: the clock is the caller's (the application's), so a certificate's validity is judged
// against the scan's time, never the machine's.

import tls from 'node:tls';
import type { CheckResult } from '../types.js';
import type { TlsCertificateInfo, TlsReport } from './probe.js';

export interface TlsCheckContext {
  now: Date;
  /** The name the service was reached by; the name check is skipped without one. */
  hostname: string | null;
  port: number | null;
  url: string | null;
}

const DAY_MS = 86_400_000;
const SHA1_OR_MD5 = /(sha1|md5|md2)with|^(sha1|md5)$/i;

/** Where a TLS endpoint was reached: the same for system and web scans. */
export interface TlsEndpoint {
  now: Date;
  /** The address that was probed. */
  address: string;
  /** The name the target was given by (a URL's host, a system target's name), if any. */
  hostname: string | null;
  port: number;
  /** Web scans: the URL whose TLS this is. */
  url: string | null;
}

/**
 * The TLS checks of an endpoint, as system and web scans both judge it: the certificate is held
 * to the name the service was reached by, the address itself when the target was an address
 * (a certificate must name it, as an IP subjectAltName, for clients that connect by address).
 */
export function endpointTlsChecks(report: TlsReport, endpoint: TlsEndpoint): CheckResult[] {
  return tlsChecks(report, {
    now: endpoint.now,
    hostname: endpoint.hostname ?? endpoint.address,
    port: endpoint.port,
    url: endpoint.url,
  });
}

/** Checks from a report, by catalogue id: only the ones that found something. */
export function tlsChecks(report: TlsReport, context: TlsCheckContext): CheckResult[] {
  if (!(context.now instanceof Date) || Number.isNaN(context.now.getTime()))
    throw new RangeError('now must be a valid Date');
  const results: CheckResult[] = [];
  const add = (checkId: string, evidence: string, details?: Record<string, unknown>) =>
    results.push({
      checkId,
      port: context.port,
      url: context.url,
      evidence: evidence.slice(0, 4000),
      ...(details ? { details } : {}),
    });

  const legacy = (['TLSv1', 'TLSv1.1'] as const).filter((v) => report.versions[v] === 'Accepted');
  if (legacy.length > 0)
    add(
      'tls.legacy-version',
      legacy
        .map((v) => {
          const cipher = report.versionCiphers?.[v];
          return `Handshake completed with ${v}${cipher ? ` (cipher ${cipher})` : ''}`;
        })
        .join('; '),
      { accepted: legacy },
    );
  if (report.weakCiphers.length > 0)
    add('tls.weak-cipher', `Accepted weak suites: ${report.weakCiphers.join(', ')}`, {
      ciphers: report.weakCiphers,
    });
  const cert = report.certificate;
  if (cert) certificateChecks(cert, context, add);
  return results;
}

function certificateChecks(
  cert: TlsCertificateInfo,
  context: TlsCheckContext,
  add: (checkId: string, evidence: string, details?: Record<string, unknown>) => void,
): void {
  const now = context.now.getTime();
  const notBefore = Date.parse(cert.notBefore);
  const notAfter = Date.parse(cert.notAfter);
  const summary = `subject ${cert.subject}, issuer ${cert.issuer}, SHA-256 ${cert.fingerprintSha256}`;
  if (notAfter < now)
    add(
      'tls.certificate-expired',
      `notAfter ${isoSeconds(cert.notAfter)}, ${days(now - notAfter)} before the scan; ${summary}`,
      {
        notAfter: cert.notAfter,
      },
    );
  else if (notBefore > now)
    add(
      'tls.certificate-expired',
      `notBefore ${isoSeconds(cert.notBefore)}, ${days(notBefore - now)} after the scan; ${summary}`,
      {
        notBefore: cert.notBefore,
      },
    );

  if (cert.selfSigned || !cert.trusted)
    add(
      'tls.certificate-self-signed',
      cert.selfSigned
        ? `Self-signed certificate (subject equals issuer and it verifies with its own key); ${summary}`
        : `Certificate not trusted (${cert.trustError}); ${summary}`,
      { selfSigned: cert.selfSigned, trustError: cert.trustError },
    );

  if (context.hostname) {
    const error = tls.checkServerIdentity(context.hostname, peerShape(cert));
    if (error)
      add(
        'tls.certificate-name-mismatch',
        `Reached as ${context.hostname}; certificate names: ${namesOf(cert).join(', ') || 'none'}`,
        { hostname: context.hostname, names: namesOf(cert) },
      );
  }

  const weak = keyWeakness(cert);
  if (weak)
    add('tls.weak-key', `${weak}; ${summary}`, {
      keyType: cert.keyType,
      keyBits: cert.keyBits,
      signatureAlgorithm: cert.signatureAlgorithm,
    });
}

/** What is weak about the key or the signature, or null. */
function keyWeakness(cert: TlsCertificateInfo): string | null {
  const reasons: string[] = [];
  const bits = cert.keyBits;
  if (bits !== null) {
    if ((cert.keyType === 'rsa' || cert.keyType === 'rsa-pss' || cert.keyType === 'dsa') && bits < 2048)
      reasons.push(`${cert.keyType.toUpperCase()} key of ${bits} bits`);
    if (cert.keyType === 'ec' && bits < 256) reasons.push(`EC key of ${bits} bits`);
  }
  if (cert.signatureAlgorithm && SHA1_OR_MD5.test(cert.signatureAlgorithm))
    reasons.push(`signature ${cert.signatureAlgorithm}`);
  return reasons.length > 0 ? reasons.join(', ') : null;
}

/** The parts of a peer certificate tls.checkServerIdentity reads. */
function peerShape(cert: TlsCertificateInfo): tls.PeerCertificate {
  const cn = commonName(cert.subject);
  return {
    subject: cn === null ? {} : { CN: cn },
    subjectaltname: cert.subjectAltNames.join(', '),
  } as unknown as tls.PeerCertificate;
}

function commonName(subject: string): string | null {
  const match = /(?:^|, )CN=([^,]*)/.exec(subject);
  return match ? (match[1] ?? null) : null;
}

function namesOf(cert: TlsCertificateInfo): string[] {
  const cn = commonName(cert.subject);
  return [...(cn ? [`CN=${cn}`] : []), ...cert.subjectAltNames];
}

function isoSeconds(iso: string): string {
  return iso.replace(/\.\d{3}Z$/, 'Z');
}

function days(ms: number): string {
  const n = Math.floor(ms / DAY_MS);
  if (n >= 1) return `${n} day${n === 1 ? '' : 's'}`;
  const hours = Math.floor(ms / 3_600_000);
  return hours >= 1 ? `${hours} hour${hours === 1 ? '' : 's'}` : 'less than an hour';
}
