import type { CheckDefinition } from './types.js';

/** Checks of system scans on what answers on a host's ports. */
export const SYSTEM_CHECKS: CheckDefinition[] = [
  {
    id: 'cleartext.telnet',
    scan: 'System',
    title: 'Telnet service (cleartext logins)',
    severity: 'High',
    category: 'Encryption',
    description: 'A Telnet service answers: logins and everything typed travel unencrypted.',
    solution: 'Turn Telnet off and use SSH.',
    references: ['https://www.rfc-editor.org/rfc/rfc854'],
    cweIds: ['CWE-319'],
    cvss3Vector: 'CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:H/I:L/A:N',
  },
  {
    id: 'cleartext.ftp',
    scan: 'System',
    title: 'FTP without TLS',
    severity: 'Medium',
    category: 'Encryption',
    description:
      'An FTP service answers and does not offer AUTH TLS: passwords and files travel unencrypted.',
    solution: 'Require FTPS (AUTH TLS) or replace FTP with SFTP.',
    references: ['https://www.rfc-editor.org/rfc/rfc4217'],
    cweIds: ['CWE-319'],
    cvss3Vector: 'CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:H/I:N/A:N',
  },
  {
    id: 'ftp.anonymous-login',
    scan: 'System',
    title: 'FTP allows anonymous login',
    severity: 'Medium',
    category: 'Authentication',
    description:
      'The FTP server accepted `USER anonymous` with an e-mail address as password (reply 230): anyone who reaches the port can read what the anonymous account sees, and upload where it may write. Rampart logs in and quits at once; it lists and transfers nothing.',
    solution:
      'Turn anonymous access off (vsftpd `anonymous_enable=NO`, ProFTPD: remove the `<Anonymous>` block) unless the server is a deliberate public mirror, and then keep it read-only.',
    references: ['https://www.rfc-editor.org/rfc/rfc1635', 'https://cwe.mitre.org/data/definitions/287.html'],
    cweIds: ['CWE-287'],
    cvss3Vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:N/A:N',
  },
  {
    id: 'cleartext.mail',
    scan: 'System',
    title: 'Mail service offers logins without TLS',
    severity: 'Low',
    category: 'Encryption',
    description:
      'An SMTP, IMAP or POP3 service answers without STARTTLS: mail and credentials may travel unencrypted.',
    solution: 'Offer STARTTLS and refuse authentication before it, or use the implicit-TLS ports.',
    references: ['https://www.rfc-editor.org/rfc/rfc8314'],
    cweIds: ['CWE-319'],
  },
  {
    id: 'noauth.redis',
    scan: 'System',
    title: 'Redis answers without authentication',
    severity: 'High',
    category: 'Authentication',
    description:
      'The Redis server answered PING with PONG to a client that gave no password: anyone who reaches the port can read and change its data, and often run code on the host.',
    solution:
      'Set `requirepass` (or ACL users), bind Redis to trusted interfaces and keep protected mode on.',
    references: ['https://redis.io/docs/latest/operate/oss_and_stack/management/security/'],
    cweIds: ['CWE-306'],
    cvss3Vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
  },
  {
    id: 'noauth.mongodb',
    scan: 'System',
    title: 'MongoDB lists databases without authentication',
    severity: 'High',
    category: 'Authentication',
    description: 'The MongoDB server answered listDatabases to a client that gave no credentials.',
    solution: 'Enable authorization (`security.authorization: enabled`) and bind to trusted interfaces.',
    references: ['https://www.mongodb.com/docs/manual/administration/security-checklist/'],
    cweIds: ['CWE-306'],
    cvss3Vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
  },
  {
    id: 'noauth.memcached',
    scan: 'System',
    title: 'Memcached answers without authentication',
    severity: 'Medium',
    category: 'Authentication',
    description:
      'The memcached server answered `version` to an unauthenticated client: its cache can be read and changed.',
    solution: 'Bind memcached to trusted interfaces, or enable SASL.',
    references: ['https://github.com/memcached/memcached/wiki/SASLHowto'],
    cweIds: ['CWE-306'],
  },
  {
    id: 'ssh.weak-algorithms',
    scan: 'System',
    title: 'SSH server offers weak algorithms',
    severity: 'Low',
    category: 'Encryption',
    description:
      "The SSH server offers algorithms that Rampart's policy (RFC 9142, RFC 8332, RFC 8758, NIST SP 800-131A) calls weak: SHA-1 or 1024-bit key exchange, DSA or SHA-1 RSA host-key signatures (`ssh-dss`, `ssh-rsa`), CBC, RC4, 3DES or no encryption, MD5, RIPEMD-160 or 96-bit SHA-1 MACs. The evidence lists each with its category. 64-bit UMAC tags alone are not counted: a forgery needs about 2^64 tries, each of which ends the connection.",
    solution:
      'Remove them from `KexAlgorithms`, `HostKeyAlgorithms`, `Ciphers` and `MACs` in sshd_config (`ssh -Q` lists what the server supports).',
    references: [
      'https://www.rfc-editor.org/rfc/rfc9142',
      'https://www.rfc-editor.org/rfc/rfc8332',
      'https://csrc.nist.gov/publications/detail/sp/800-131a/rev-2/final',
      'https://infosec.mozilla.org/guidelines/openssh',
    ],
    cweIds: ['CWE-327'],
  },
  {
    id: 'ssh.protocol-1',
    scan: 'System',
    title: 'SSH protocol version 1 supported',
    severity: 'High',
    category: 'Encryption',
    description:
      'The SSH server announces protocol 1 (`SSH-1.99` or `SSH-1.5`), which has known cryptographic flaws.',
    solution: 'Allow only protocol 2.',
    references: ['https://www.kb.cert.org/vuls/id/684820'],
    cweIds: ['CWE-327'],
  },
  {
    id: 'service.version-disclosed',
    scan: 'Both',
    title: 'Service discloses its product and version',
    severity: 'Info',
    category: 'Information disclosure',
    description:
      'The service names its product and version in its banner or headers, which helps an attacker choose exploits.',
    solution: 'Hide version details where the product allows it (nginx `server_tokens off;`).',
    references: [],
    cweIds: ['CWE-200'],
  },
];
