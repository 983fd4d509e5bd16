import type { CheckDefinition } from './types.js';

/** TLS checks: system scans run them on any port that speaks TLS, web scans on https URLs. */
export const TLS_CHECKS: CheckDefinition[] = [
  {
    id: 'tls.legacy-version',
    scan: 'Both',
    title: 'TLS 1.0 or TLS 1.1 accepted',
    severity: 'Medium',
    category: 'Encryption',
    description:
      'The service completes handshakes with TLS 1.0 or TLS 1.1, deprecated by RFC 8996: they rely on SHA-1 and CBC constructions with known attacks (BEAST, Lucky Thirteen) and are refused by current clients.',
    solution: 'Accept only TLS 1.2 and TLS 1.3 (nginx: `ssl_protocols TLSv1.2 TLSv1.3;`).',
    references: ['https://www.rfc-editor.org/rfc/rfc8996'],
    cweIds: ['CWE-327'],
    cvss3Vector: 'CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:L/I:L/A:N',
  },
  {
    id: 'tls.weak-cipher',
    scan: 'Both',
    title: 'Weak TLS cipher suites accepted',
    severity: 'Medium',
    category: 'Encryption',
    description:
      'The service accepts cipher suites with no forward secrecy, export-grade or NULL encryption, RC4, 3DES or anonymous key exchange.',
    solution:
      'Offer only AEAD suites with ECDHE key exchange (Mozilla "intermediate" configuration) and prefer the server order.',
    references: ['https://wiki.mozilla.org/Security/Server_Side_TLS'],
    cweIds: ['CWE-327'],
    cvss3Vector: 'CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:L/I:N/A:N',
  },
  {
    id: 'tls.certificate-expired',
    scan: 'Both',
    title: 'TLS certificate expired or not yet valid',
    severity: 'Medium',
    category: 'Encryption',
    description:
      'The certificate the service presents is outside its validity period: clients warn or refuse, and users learn to click through warnings.',
    solution: 'Renew the certificate and automate renewal (ACME).',
    references: ['https://www.rfc-editor.org/rfc/rfc5280#section-4.1.2.5'],
    cweIds: ['CWE-298'],
    cvss3Vector: 'CVSS:3.1/AV:N/AC:H/PR:N/UI:R/S:U/C:L/I:L/A:N',
  },
  {
    id: 'tls.certificate-self-signed',
    scan: 'Both',
    title: 'TLS certificate self-signed or not trusted',
    severity: 'Medium',
    category: 'Encryption',
    description:
      'The certificate chain does not lead to a trusted authority (self-signed, or an unknown issuer): clients cannot tell the service from an impostor.',
    solution: 'Use a certificate issued by an authority the clients trust, and serve the whole chain.',
    references: ['https://www.rfc-editor.org/rfc/rfc5280#section-6'],
    cweIds: ['CWE-295'],
    cvss3Vector: 'CVSS:3.1/AV:N/AC:H/PR:N/UI:R/S:U/C:L/I:L/A:N',
  },
  {
    id: 'tls.certificate-name-mismatch',
    scan: 'Both',
    title: 'TLS certificate does not match the host name',
    severity: 'Medium',
    category: 'Encryption',
    description:
      'No subject alternative name (or common name) of the certificate matches the name the service was reached by.',
    solution: 'Issue the certificate for every name the service answers to.',
    references: ['https://www.rfc-editor.org/rfc/rfc6125'],
    cweIds: ['CWE-297'],
    cvss3Vector: 'CVSS:3.1/AV:N/AC:H/PR:N/UI:R/S:U/C:L/I:L/A:N',
  },
  {
    id: 'tls.weak-key',
    scan: 'Both',
    title: 'TLS certificate key too small or weakly signed',
    severity: 'Medium',
    category: 'Encryption',
    description:
      'The certificate has an RSA key under 2048 bits, an EC key under 256 bits, or a SHA-1 or MD5 signature.',
    solution:
      'Reissue the certificate with an RSA 2048-bit (or larger) or an ECDSA P-256 key, signed with SHA-256.',
    references: ['https://csrc.nist.gov/publications/detail/sp/800-131a/rev-2/final'],
    cweIds: ['CWE-326'],
  },
];
