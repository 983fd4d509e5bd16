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

/** Algorithms considered weak (RFC 9142 for key exchange; CBC, arcfour, MD5 and short MACs). */
export function weakSshAlgorithms(offer: SshAlgorithms): string[] {
  const weakKex = new Set([
    'diffie-hellman-group1-sha1',
    'diffie-hellman-group14-sha1',
    'diffie-hellman-group-exchange-sha1',
  ]);
  const weakCipher = (name: string) => /-cbc(?:@|$)/.test(name) || name.startsWith('arcfour');
  const weakMac = (name: string) =>
    name.startsWith('hmac-md5') ||
    name === 'hmac-sha1-96' ||
    name.startsWith('hmac-sha1-96@') ||
    name.startsWith('umac-64');
  return [
    ...offer.kex.filter((n) => weakKex.has(n)),
    ...offer.ciphers.filter(weakCipher),
    ...offer.macs.filter(weakMac),
  ];
}
