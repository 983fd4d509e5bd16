// TLS probing with Node's own OpenSSL: which protocol versions a port accepts, whether it accepts
// weak cipher suites, and what certificate it presents. Every handshake lowers OpenSSL's security
// level for that one connection (`@SECLEVEL=0`), since OpenSSL 3 refuses TLS 1.0/1.1 and small keys
// at its default level; nothing is changed process-wide. Certificates are read without verifying
// (rejectUnauthorized: false) and judged afterwards, so a bad certificate is reported, not fatal.

import { X509Certificate } from 'node:crypto';
import { isIP } from 'node:net';
import tls from 'node:tls';
import { abortReason } from '../runtime/limits.js';

export const TLS_VERSIONS = ['TLSv1', 'TLSv1.1', 'TLSv1.2', 'TLSv1.3'] as const;
export type TlsVersionName = (typeof TLS_VERSIONS)[number];

export interface TlsProbeOptions {
  servername?: string | null;
  timeoutMs: number;
  signal?: AbortSignal;
}

export interface TlsCertificateInfo {
  subject: string;
  issuer: string;
  subjectAltNames: string[];
  notBefore: string;
  notAfter: string;
  selfSigned: boolean;
  trusted: boolean;
  trustError: string | null;
  keyType: string | null;
  keyBits: number | null;
  signatureAlgorithm: string | null;
  fingerprintSha256: string;
  chainLength: number;
}

export type TlsVersionState = 'Accepted' | 'Refused' | 'Unknown';

export interface TlsReport {
  /** TLSv1, TLSv1.1, TLSv1.2, TLSv1.3 */
  versions: Record<TlsVersionName, TlsVersionState>;
  /** Always 'NotProbed': OpenSSL in Node cannot speak SSLv3; never report it as off. */
  sslv3: 'NotProbed';
  /** Accepted weak suites found by trying a handful of weak suite groups. */
  weakCiphers: string[];
  certificate: TlsCertificateInfo | null;
  alpn: string | null;
  notes: string[];
  /** The cipher each accepted version negotiated, for the evidence. */
  versionCiphers?: Partial<Record<TlsVersionName, string>>;
}

export const SSLV3_NOTE = 'SSLv3 cannot be probed from this node (OpenSSL has no SSLv3).';

/** Weak suite groups in OpenSSL's cipher-string syntax, with what makes them weak. */
const WEAK_GROUPS: ReadonlyArray<{ group: string; why: string }> = [
  { group: 'kRSA', why: 'static RSA key exchange, no forward secrecy' },
  { group: 'aNULL', why: 'anonymous key exchange' },
  { group: 'eNULL', why: 'no encryption' },
  { group: 'RC4', why: 'RC4' },
  { group: '3DES', why: '3DES' },
  { group: 'EXPORT', why: 'export grade' },
];

const LOW_SECURITY = ':@SECLEVEL=0';

/** How one handshake ended. */
type Handshake =
  | { kind: 'done'; protocol: string | null; cipher: string; alpn: string | null; socket: tls.TLSSocket }
  | { kind: 'refused'; error: string }
  | { kind: 'silent' }
  | { kind: 'unreachable'; error: string };

interface HandshakeSettings {
  minVersion: TlsVersionName;
  maxVersion: TlsVersionName;
  ciphers: string;
}

function validate(address: string, port: number, options: TlsProbeOptions): void {
  if (typeof address !== 'string' || isIP(address) === 0)
    throw new RangeError(`address must be an IP address: ${String(address)}`);
  if (!Number.isInteger(port) || port < 1 || port > 65_535)
    throw new RangeError(`port must be an integer from 1 to 65535: ${String(port)}`);
  if (typeof options !== 'object' || options === null) throw new RangeError('options must be an object');
  const { timeoutMs, servername } = options;
  if (typeof timeoutMs !== 'number' || !Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > 600_000)
    throw new RangeError(`timeoutMs must be an integer from 1 to 600000: ${String(timeoutMs)}`);
  if (
    servername !== undefined &&
    servername !== null &&
    (typeof servername !== 'string' || !/^[A-Za-z0-9_.:-]{1,253}$/.test(servername))
  )
    throw new RangeError(`servername must be a host name: ${String(servername)}`);
  if (options.signal !== undefined && !(options.signal instanceof AbortSignal))
    throw new RangeError('signal must be an AbortSignal');
}

/** SNI carries names only: an IP literal is never sent as a server name. */
function sni(servername: string | null | undefined): string | undefined {
  return servername && isIP(servername) === 0 ? servername : undefined;
}

/**
 * One handshake. Resolves how it ended (the socket of a completed one is left open for the caller
 * to read and destroy); rejects only when the signal aborts.
 */
function handshake(
  address: string,
  port: number,
  options: TlsProbeOptions,
  settings: HandshakeSettings,
): Promise<Handshake> {
  const signal = options.signal;
  if (signal?.aborted) return Promise.reject(abortReason(signal));
  let context: tls.SecureContext;
  try {
    context = tls.createSecureContext({ ...settings });
  } catch (error) {
    // This OpenSSL has none of the suites asked for (RC4, 3DES, … are compiled out).
    return Promise.resolve({ kind: 'unreachable', error: `no-cipher-match: ${(error as Error).message}` });
  }
  return new Promise((resolve, reject) => {
    let settled = false;
    const servername = sni(options.servername);
    const socket = tls.connect({
      host: address,
      port,
      secureContext: context,
      rejectUnauthorized: false,
      ALPNProtocols: ['h2', 'http/1.1'],
      ...(servername ? { servername } : {}),
    });
    const finish = (outcome: Handshake | Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      if (outcome instanceof Error) {
        socket.destroy();
        reject(outcome);
        return;
      }
      if (outcome.kind !== 'done') socket.destroy();
      resolve(outcome);
    };
    const onAbort = () => finish(abortReason(signal as AbortSignal));
    const timer = setTimeout(() => finish({ kind: 'silent' }), options.timeoutMs);
    signal?.addEventListener('abort', onAbort, { once: true });
    socket.once('secureConnect', () =>
      finish({
        kind: 'done',
        protocol: socket.getProtocol(),
        cipher: socket.getCipher()?.name ?? 'unknown',
        alpn: typeof socket.alpnProtocol === 'string' ? socket.alpnProtocol : null,
        socket,
      }),
    );
    socket.once('error', (error: NodeJS.ErrnoException) => {
      const code = error.code ?? '';
      // A TCP refusal or an unreachable host says nothing about TLS; anything after the
      // connection was made (an alert, a reset, a close) is the server turning the hello down.
      if (['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT', 'EADDRNOTAVAIL'].includes(code))
        finish({ kind: 'unreachable', error: `${code}: ${error.message}` });
      else finish({ kind: 'refused', error: code ? `${code}: ${error.message}` : error.message });
    });
    socket.once('close', () => finish({ kind: 'refused', error: 'connection closed during the handshake' }));
  });
}

function closeQuietly(result: Handshake): void {
  if (result.kind === 'done') result.socket.destroy();
}

/** Cheap single handshake: does the port speak TLS? */
export async function speaksTls(address: string, port: number, options: TlsProbeOptions): Promise<boolean> {
  validate(address, port, options);
  const result = await handshake(address, port, options, {
    minVersion: 'TLSv1',
    maxVersion: 'TLSv1.3',
    ciphers: `DEFAULT${LOW_SECURITY}`,
  });
  closeQuietly(result);
  return result.kind === 'done';
}

/** Null when the port does not complete a TLS handshake at all (not TLS). */
export async function probeTls(
  address: string,
  port: number,
  options: TlsProbeOptions,
): Promise<TlsReport | null> {
  validate(address, port, options);
  const first = await handshake(address, port, options, {
    minVersion: 'TLSv1',
    maxVersion: 'TLSv1.3',
    ciphers: `DEFAULT${LOW_SECURITY}`,
  });
  if (first.kind !== 'done') return null;
  let certificate: TlsCertificateInfo | null;
  try {
    certificate = certificateOf(first.socket);
  } finally {
    first.socket.destroy();
  }
  const notes = [SSLV3_NOTE];
  const versions = {} as Record<TlsVersionName, TlsVersionState>;
  const versionCiphers: Partial<Record<TlsVersionName, string>> = {};
  for (const version of TLS_VERSIONS) {
    const result = await handshake(address, port, options, {
      minVersion: version,
      maxVersion: version,
      ciphers: `DEFAULT${LOW_SECURITY}`,
    });
    closeQuietly(result);
    versions[version] = stateOf(result);
    if (result.kind === 'done') versionCiphers[version] = result.cipher;
    if (versions[version] === 'Unknown')
      notes.push(
        `${version} could not be judged: ${result.kind === 'silent' ? 'no answer in time' : describe(result)}.`,
      );
  }
  const weakCiphers = await weakSuites(address, port, options, versions, notes);
  return { versions, sslv3: 'NotProbed', weakCiphers, certificate, alpn: first.alpn, notes, versionCiphers };
}

function stateOf(result: Handshake): TlsVersionState {
  if (result.kind === 'done') return 'Accepted';
  if (result.kind === 'refused') return 'Refused';
  return 'Unknown';
}

function describe(result: Handshake): string {
  return result.kind === 'refused' || result.kind === 'unreachable' ? result.error : result.kind;
}

/**
 * Offers each weak group alone, at the highest accepted version up to TLS 1.2 (TLS 1.3 suites are
 * all strong and the cipher list does not govern them). A completed handshake names a suite the
 * server accepted.
 */
async function weakSuites(
  address: string,
  port: number,
  options: TlsProbeOptions,
  versions: Record<TlsVersionName, TlsVersionState>,
  notes: string[],
): Promise<string[]> {
  const legacy = (['TLSv1.2', 'TLSv1.1', 'TLSv1'] as const).filter((v) => versions[v] !== 'Refused');
  if (legacy.length === 0) return [];
  const found: string[] = [];
  const unavailable: string[] = [];
  for (const { group, why } of WEAK_GROUPS) {
    const result = await handshake(address, port, options, {
      minVersion: legacy[legacy.length - 1] as TlsVersionName,
      maxVersion: legacy[0] as TlsVersionName,
      ciphers: `${group}${LOW_SECURITY}`,
    });
    closeQuietly(result);
    if (result.kind === 'done') found.push(`${result.cipher} (${why})`);
    else if (result.kind === 'unreachable' && result.error.startsWith('no-cipher-match'))
      unavailable.push(group);
  }
  if (unavailable.length > 0)
    notes.push(`Suites of ${unavailable.join(', ')} were not probed: this node's OpenSSL cannot offer them.`);
  return found;
}

const DATE_ERRORS = new Set(['CERT_HAS_EXPIRED', 'CERT_NOT_YET_VALID']);

/**
 * The leaf certificate and how far its chain goes. Trust is OpenSSL's verdict against Node's CA
 * store, except its date verdict: validity is judged against the application's clock by the checks.
 */
function certificateOf(socket: tls.TLSSocket): TlsCertificateInfo | null {
  const peer = socket.getPeerCertificate(true);
  if (!peer?.raw) return null;
  const x509 = new X509Certificate(peer.raw);
  const authError = socket.authorizationError ? String(socket.authorizationError) : null;
  const trustError = authError && !DATE_ERRORS.has(authError) ? authError : null;
  const selfSigned = x509.subject === x509.issuer && x509.checkIssued(x509) && verifiesItself(x509);
  const key = x509.publicKey;
  return {
    subject: oneLine(x509.subject),
    issuer: oneLine(x509.issuer),
    subjectAltNames: (x509.subjectAltName ?? '')
      .split(', ')
      .map((s) => s.trim())
      .filter((s) => s !== ''),
    notBefore: x509.validFromDate.toISOString(),
    notAfter: x509.validToDate.toISOString(),
    selfSigned,
    trusted: trustError === null,
    trustError,
    keyType: key.asymmetricKeyType ?? null,
    keyBits: keyBitsOf(key, peer.bits),
    signatureAlgorithm: x509.signatureAlgorithm ?? null,
    fingerprintSha256: x509.fingerprint256,
    chainLength: chainLength(peer),
  };
}

function verifiesItself(x509: X509Certificate): boolean {
  try {
    return x509.verify(x509.publicKey);
  } catch {
    return false;
  }
}

const CURVE_BITS: Record<string, number> = {
  prime256v1: 256,
  secp256k1: 256,
  secp384r1: 384,
  secp521r1: 521,
  secp224r1: 224,
  prime192v1: 192,
};

function keyBitsOf(key: import('node:crypto').KeyObject, peerBits: number | undefined): number | null {
  const details = key.asymmetricKeyDetails;
  if (details?.modulusLength) return details.modulusLength;
  if (details?.namedCurve && CURVE_BITS[details.namedCurve]) return CURVE_BITS[details.namedCurve] ?? null;
  if (key.asymmetricKeyType === 'ed25519') return 256;
  if (key.asymmetricKeyType === 'ed448') return 456;
  return typeof peerBits === 'number' ? peerBits : null;
}

/** Certificates the server sent, leaf included, following issuers until one repeats. */
function chainLength(peer: tls.DetailedPeerCertificate): number {
  const seen = new Set<string>();
  let current: tls.DetailedPeerCertificate | undefined = peer;
  while (current?.raw && !seen.has(current.fingerprint256) && seen.size < 16) {
    seen.add(current.fingerprint256);
    current = current.issuerCertificate;
  }
  return seen.size;
}

function oneLine(name: string): string {
  return name.split('\n').join(', ');
}
