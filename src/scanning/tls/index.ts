/**
 * TLS probing and the TLS checks, shared by system scans (any port that speaks TLS) and web scans
 * (https URLs). Pure Node: node:tls and X509Certificate, no native modules.
 */

export { endpointTlsChecks, type TlsCheckContext, type TlsEndpoint, tlsChecks } from './checks.js';
export {
  probeTls,
  SSLV3_NOTE,
  speaksTls,
  TLS_VERSIONS,
  type TlsCertificateInfo,
  type TlsProbeOptions,
  type TlsReport,
  type TlsVersionName,
  type TlsVersionState,
} from './probe.js';
