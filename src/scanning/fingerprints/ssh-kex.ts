// The server's SSH_MSG_KEXINIT (RFC 4253 7.1), which follows its identification line once the
// client has sent its own: a binary packet (uint32 length, byte padding length, payload, padding)
// whose payload is byte 20, a 16-byte cookie and ten name-lists (uint32 length, comma-separated).

const SSH_MSG_KEXINIT = 20;
const MAX_PACKET = 35_000;
const MAX_LIST_BYTES = 4096;

export interface SshAlgorithms {
  kex: string[];
  hostKey: string[];
  /** Client to server, then server to client. */
  ciphers: string[];
  macs: string[];
  compression: string[];
}

/** The server's offer, read from the bytes after its identification line; null when incomplete. */
export function readSshKexinit(bytes: Buffer): SshAlgorithms | null {
  const start = packetStart(bytes);
  if (start < 0 || start + 6 > bytes.length) return null;
  const length = bytes.readUInt32BE(start);
  if (length < 6 || length > MAX_PACKET || start + 4 + length > bytes.length) return null;
  const padding = bytes[start + 4]!;
  const payload = bytes.subarray(start + 5, start + 4 + length - padding);
  if (payload[0] !== SSH_MSG_KEXINIT || payload.length < 17 + 40) return null;
  const lists: string[][] = [];
  let at = 17;
  for (let i = 0; i < 10; i++) {
    if (at + 4 > payload.length) return null;
    const size = payload.readUInt32BE(at);
    if (size > MAX_LIST_BYTES || at + 4 + size > payload.length) return null;
    const text = payload.subarray(at + 4, at + 4 + size).toString('latin1');
    if (!/^[\x21-\x7e]*$/.test(text)) return null;
    lists.push(text === '' ? [] : text.split(',', 128));
    at += 4 + size;
  }
  const unique = (a: string[], b: string[]) => [...new Set([...a, ...b])];
  return {
    kex: lists[0]!,
    hostKey: lists[1]!,
    ciphers: unique(lists[2]!, lists[3]!),
    macs: unique(lists[4]!, lists[5]!),
    compression: unique(lists[6]!, lists[7]!),
  };
}

/** Where the binary packets start: after the line that begins `SSH-` (lines before it are allowed). */
function packetStart(bytes: Buffer): number {
  let at = 0;
  for (let lines = 0; lines < 32 && at < bytes.length; lines++) {
    const end = bytes.indexOf(0x0a, at);
    if (end < 0) return -1;
    if (bytes.subarray(at, at + 4).toString('latin1') === 'SSH-') return end + 1;
    at = end + 1;
  }
  return -1;
}

/**
 * Rampart's SSH algorithm policy: what a server should no longer offer, by category, with why.
 * Drawn from RFC 9142 (key exchange), RFC 8332 and OpenSSH 8.8's release notes (SHA-1 RSA
 * signatures), RFC 8758 (arcfour), NIST SP 800-131A Rev. 2 (SHA-1, DSA, 3DES) and ssh-audit's
 * "fail" list. ssh-audit only warns about UMAC-64 (a 64-bit tag: a forgery needs about 2^64 tries,
 * each of which ends the connection), as about NIST's elliptic curves and encrypt-and-MAC modes:
 * none of those is weak here, so a stock Debian sshd, which still offers umac-64, gets no finding.
 */
export type SshAlgorithmCategory = 'kex' | 'host-key' | 'cipher' | 'mac';

export interface WeakSshAlgorithm {
  category: SshAlgorithmCategory;
  name: string;
  reason: string;
}

const WEAK_KEX: ReadonlyArray<[RegExp, string]> = [
  [/^diffie-hellman-group1-sha1$/, '1024-bit group with SHA-1 (RFC 9142: MUST NOT)'],
  [/^diffie-hellman-group14-sha1$/, 'SHA-1 exchange hash (RFC 9142: SHOULD NOT)'],
  [/^diffie-hellman-group-exchange-sha1$/, 'SHA-1 exchange hash (RFC 9142: MUST NOT)'],
  [/^gss-.*-sha1-/, 'SHA-1 exchange hash (RFC 9142)'],
  [/^rsa1024-sha1$/, '1024-bit RSA with SHA-1 (RFC 9142: MUST NOT)'],
];

const WEAK_HOST_KEY: ReadonlyArray<[RegExp, string]> = [
  [
    /^ssh-dss(?:-cert-v0[01]@openssh\.com)?$/,
    'DSA, 1024-bit keys with SHA-1 signatures (removed from OpenSSH)',
  ],
  [
    /^ssh-rsa(?:-cert-v0[01]@openssh\.com)?$/,
    'RSA signatures with SHA-1 (RFC 8332; off by default since OpenSSH 8.8)',
  ],
];

const WEAK_CIPHER: ReadonlyArray<[RegExp, string]> = [
  [/^none$/, 'no encryption'],
  [/^arcfour/, 'RC4 (RFC 8758: MUST NOT)'],
  [/^3des-/, '3DES, 64-bit blocks (NIST SP 800-131A: disallowed)'],
  [/^(?:blowfish|cast128)-/, '64-bit block cipher'],
  [/-cbc(?:@|$)/, 'CBC mode (plaintext recovery attacks on SSH, CVE-2008-5161)'],
];

const WEAK_MAC: ReadonlyArray<[RegExp, string]> = [
  [/^none$/, 'no integrity protection'],
  [/^hmac-md5/, 'MD5'],
  [/^hmac-sha1-96(?:-etm)?(?:@|$)/, 'SHA-1 truncated to 96 bits'],
  [/^hmac-ripemd160/, 'RIPEMD-160, removed from OpenSSH'],
];

/** The offered algorithms the policy above calls weak, in the offer's order, with their category. */
export function weakSshAlgorithms(offer: SshAlgorithms): WeakSshAlgorithm[] {
  const judge = (category: SshAlgorithmCategory, names: string[], rules: ReadonlyArray<[RegExp, string]>) =>
    names.flatMap((name) => {
      const rule = rules.find(([pattern]) => pattern.test(name));
      return rule ? [{ category, name, reason: rule[1] }] : [];
    });
  return [
    ...judge('kex', offer.kex, WEAK_KEX),
    ...judge('host-key', offer.hostKey, WEAK_HOST_KEY),
    ...judge('cipher', offer.ciphers, WEAK_CIPHER),
    ...judge('mac', offer.macs, WEAK_MAC),
  ];
}
