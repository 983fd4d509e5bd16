// The MySQL/MariaDB initial handshake (protocol version 10), which the server sends unasked as soon
// as a client connects:
//   3 bytes payload length (little-endian) · 1 byte sequence id (0) · payload:
//   0x0a · server version, NUL-terminated · connection id (4) · auth data (8) · 0x00 · …
// or, when the client may not connect, an error packet: 0xff · error code (2) · message.
// Only the bytes present are read: the length field bounds the payload, never the other way round.

/** What the packet says; the version text exactly as sent (`5.5.5-10.11.6-MariaDB-0+deb12u1`). */
export type MysqlGreeting =
  | { kind: 'handshake'; serverVersion: string }
  | { kind: 'error'; code: number; message: string };

const HEADER_BYTES = 4;
const PROTOCOL_10 = 0x0a;
const ERROR_MARKER = 0xff;
const MAX_VERSION_BYTES = 100;
const MAX_MESSAGE_BYTES = 200;
/** After the version: connection id (4), auth data part 1 (8), filler (1). */
const AFTER_VERSION_BYTES = 13;

/** Reads a greeting packet; null when the bytes are not one (or not enough of one). */
export function readMysqlGreeting(bytes: Buffer): MysqlGreeting | null {
  if (bytes.length < HEADER_BYTES + 1) return null;
  const declared = bytes[0]! | (bytes[1]! << 8) | (bytes[2]! << 16);
  if (bytes[3] !== 0 || declared === 0) return null;
  // A declared length past the end means a short read or a lie: only what arrived is read.
  const payload = bytes.subarray(
    HEADER_BYTES,
    HEADER_BYTES + Math.min(declared, bytes.length - HEADER_BYTES),
  );
  if (payload[0] === PROTOCOL_10) return readHandshake(payload);
  if (payload[0] === ERROR_MARKER) return readError(payload);
  return null;
}

function readHandshake(payload: Buffer): MysqlGreeting | null {
  const end = payload.indexOf(0, 1);
  if (end < 2 || end - 1 > MAX_VERSION_BYTES) return null;
  // A real handshake goes on past the version; a NUL right at the end of a cut packet is no proof.
  if (payload.length < end + 1 + AFTER_VERSION_BYTES) return null;
  const serverVersion = payload.subarray(1, end).toString('latin1');
  if (!/^[\x21-\x7e]+$/.test(serverVersion) || !/^\d/.test(serverVersion)) return null;
  return { kind: 'handshake', serverVersion };
}

function readError(payload: Buffer): MysqlGreeting | null {
  if (payload.length < 4) return null;
  const code = payload[1]! | (payload[2]! << 8);
  // Error codes of the server's own (1000–1999, and 2000+ for newer ones); anything else is noise.
  if (code < 1000 || code > 9999) return null;
  const message = payload.subarray(3, 3 + MAX_MESSAGE_BYTES).toString('latin1');
  return { kind: 'error', code, message };
}

/** MariaDB or MySQL, and the release, from a handshake's version text. */
export function mysqlProduct(serverVersion: string): {
  product: 'MariaDB' | 'MySQL';
  version: string | null;
} {
  if (/mariadb/i.test(serverVersion)) {
    // MariaDB before 11 prefixes "5.5.5-" so that old replication clients accept it.
    const release = /^(?:5\.5\.5-)?(\d+\.\d+\.\d+)/.exec(serverVersion);
    return { product: 'MariaDB', version: release?.[1] ?? null };
  }
  const release = /^(\d+\.\d+\.\d+)/.exec(serverVersion);
  return { product: 'MySQL', version: release?.[1] ?? null };
}
