// Recognisers of binary answers: Telnet negotiation, PostgreSQL, MongoDB, RDP, SMB, LDAP and DNS.
// Each reads only the bytes present, bounds every length it is given by what arrived, and returns
// null when the bytes are not its protocol. The requests they answer are in probes.ts.

import { guess, VERSION } from './guess.js';
import { DNS_QUERY_ID, MONGODB_REQUEST_ID } from './probes.js';
import type { ServiceGuess } from './types.js';

const IAC = 0xff;
/** WILL, WONT, DO, DONT. */
const NEGOTIATION = new Set([0xfb, 0xfc, 0xfd, 0xfe]);

/** Telnet servers open with option negotiation: IAC (255), then WILL/WONT/DO/DONT, then an option. */
export function telnet(bytes: Buffer): ServiceGuess | null {
  if (bytes.length < 3 || bytes[0] !== IAC || !NEGOTIATION.has(bytes[1]!)) return null;
  const options: number[] = [];
  for (let i = 0; i + 2 < bytes.length && bytes[i] === IAC && options.length < 16; i += 3) {
    if (!NEGOTIATION.has(bytes[i + 1]!)) break;
    options.push(bytes[i + 2]!);
  }
  return guess('telnet', null, null, `Telnet negotiation (options ${options.join(', ')})`);
}

/** The answer to an SSLRequest: one byte, `S` (TLS offered) or `N` (not). */
export function postgresSslAnswer(bytes: Buffer): 'S' | 'N' | null {
  if (bytes.length !== 1) return null;
  return bytes[0] === 0x53 ? 'S' : bytes[0] === 0x4e ? 'N' : null;
}

/** An ErrorResponse's fields by their one-letter code (S, V, C, M, …). */
export function readPostgresError(bytes: Buffer): Map<string, string> | null {
  if (bytes.length < 6 || bytes[0] !== 0x45) return null;
  const declared = bytes.readUInt32BE(1);
  if (declared < 5 || declared > 16_384) return null;
  const end = Math.min(bytes.length, 1 + declared);
  const fields = new Map<string, string>();
  let at = 5;
  while (at < end && bytes[at] !== 0) {
    const code = String.fromCharCode(bytes[at]!);
    const stop = bytes.indexOf(0, at + 1);
    if (stop < 0 || stop >= end) break;
    fields.set(code, bytes.subarray(at + 1, Math.min(stop, at + 1 + 512)).toString('utf8'));
    at = stop + 1;
  }
  return fields.has('S') || fields.has('C') ? fields : null;
}

/**
 * PostgreSQL's answer to our startup: authentication requests ('R', even AuthenticationOk under
 * `trust`) and then, for a role that does not exist, an ErrorResponse ('E').
 */
export function postgresql(bytes: Buffer): ServiceGuess | null {
  let at = 0;
  let method: number | null = null;
  // Authentication messages first: 'R', length 8–64, a known method code.
  while (at + 9 <= bytes.length && bytes[at] === 0x52) {
    const length = bytes.readUInt32BE(at + 1);
    const code = bytes.readUInt32BE(at + 5);
    if (length < 8 || length > 64 || ![0, 2, 3, 5, 7, 9, 10].includes(code)) return null;
    method ??= code;
    at += 1 + length;
  }
  const error = readPostgresError(bytes.subarray(at));
  if (error) {
    // SQLSTATE is five characters; the code proves PostgreSQL's protocol, the text is evidence only.
    const state = error.get('C') ?? '';
    if (!/^[0-9A-Z]{5}$/.test(state)) return null;
    const evidence = `PostgreSQL error ${state}: ${error.get('M') ?? ''}`;
    return guess('postgresql', 'PostgreSQL', postgresVersionIn(error.get('M') ?? ''), evidence);
  }
  if (method === null) return null;
  return guess('postgresql', 'PostgreSQL', null, `PostgreSQL authentication request (method ${method})`);
}

/** Some errors name the server's release ("… PostgreSQL 16.4 …"); most do not. */
function postgresVersionIn(message: string): string | null {
  return new RegExp(`\\bPostgreSQL (${VERSION})`).exec(message)?.[1] ?? null;
}

/** The top-level string, number and boolean fields of a BSON document; nested ones are skipped. */
export function readBson(bytes: Buffer): Map<string, string | number | boolean> | null {
  if (bytes.length < 5) return null;
  const declared = bytes.readInt32LE(0);
  if (declared < 5 || declared > bytes.length) return null;
  const fields = new Map<string, string | number | boolean>();
  let at = 4;
  while (at < declared - 1 && fields.size < 256) {
    const type = bytes[at]!;
    const nameEnd = bytes.indexOf(0, at + 1);
    if (nameEnd < 0 || nameEnd >= declared) return null;
    const name = bytes.subarray(at + 1, nameEnd).toString('utf8');
    at = nameEnd + 1;
    const size = bsonValue(bytes, at, type, declared, (value) => fields.set(name, value));
    if (size < 0) return fields;
    at += size;
  }
  return fields;
}

/** Reads one value; answers its size in bytes, or -1 for a type it does not know. */
function bsonValue(
  bytes: Buffer,
  at: number,
  type: number,
  end: number,
  keep: (value: string | number | boolean) => void,
): number {
  const fits = (size: number) => at + size <= end;
  switch (type) {
    case 0x01: // double
      if (!fits(8)) return -1;
      keep(bytes.readDoubleLE(at));
      return 8;
    case 0x02: {
      // string: int32 length (with its NUL), bytes
      if (!fits(4)) return -1;
      const length = bytes.readInt32LE(at);
      if (length < 1 || !fits(4 + length)) return -1;
      keep(bytes.subarray(at + 4, at + 4 + Math.min(length - 1, 512)).toString('utf8'));
      return 4 + length;
    }
    case 0x03: // document
    case 0x04: {
      // array
      if (!fits(4)) return -1;
      const length = bytes.readInt32LE(at);
      return length >= 5 && fits(length) ? length : -1;
    }
    case 0x08:
      if (!fits(1)) return -1;
      keep(bytes[at] === 1);
      return 1;
    case 0x10:
      if (!fits(4)) return -1;
      keep(bytes.readInt32LE(at));
      return 4;
    case 0x12:
      if (!fits(8)) return -1;
      keep(Number(bytes.readBigInt64LE(at)));
      return 8;
    default:
      return -1;
  }
}

/** The body document of an OP_MSG reply to one of our requests, or null. */
export function readMongodbReply(bytes: Buffer): Map<string, string | number | boolean> | null {
  if (bytes.length < 26) return null;
  const length = bytes.readInt32LE(0);
  const responseTo = bytes.readInt32LE(8);
  const opCode = bytes.readInt32LE(12);
  if (opCode !== 2013 || length < 26 || length > 48 * 1024 * 1024) return null;
  if (responseTo !== MONGODB_REQUEST_ID && responseTo !== MONGODB_REQUEST_ID + 1) return null;
  if (bytes[20] !== 0) return null;
  return readBson(bytes.subarray(21, Math.min(bytes.length, length)));
}

/** MongoDB's reply to buildInfo: `version` when it answered. */
export function mongodb(bytes: Buffer): ServiceGuess | null {
  const reply = readMongodbReply(bytes);
  if (!reply) return null;
  const version = reply.get('version');
  const release = typeof version === 'string' ? new RegExp(`^${VERSION}$`).exec(version)?.[0] : undefined;
  return guess(
    'mongodb',
    'MongoDB',
    release ?? null,
    release ? `MongoDB buildInfo version ${release}` : 'MongoDB OP_MSG reply',
  );
}

/** memcached's `VERSION 1.6.18`. */
export function memcached(text: string): ServiceGuess | null {
  const match = new RegExp(`^VERSION (${VERSION})\\r?$`, 'm').exec(text.slice(0, 200));
  return match ? guess('memcached', 'memcached', match[1]!, match[0].trim()) : null;
}

const RDP_PROTOCOLS: Record<number, string> = { 0: 'RDP', 1: 'TLS', 2: 'CredSSP', 8: 'RDSTLS' };

/** An X.224 Connection Confirm in TPKT, with the RDP negotiation response when there is one. */
export function rdp(bytes: Buffer): ServiceGuess | null {
  if (bytes.length < 11 || bytes[0] !== 0x03 || bytes[1] !== 0x00) return null;
  const length = bytes.readUInt16BE(2);
  if (length < 11 || bytes[5] !== 0xd0) return null;
  let detail = 'X.224 connection confirm';
  if (bytes.length >= 19 && bytes[11] === 0x02) {
    const selected = bytes.readUInt32LE(15);
    detail += `, selected protocol ${RDP_PROTOCOLS[selected] ?? selected}`;
  } else if (bytes.length >= 19 && bytes[11] === 0x03) {
    detail += `, negotiation failure ${bytes.readUInt32LE(15)}`;
  }
  return guess('rdp', null, null, detail);
}

const SMB_DIALECTS: Record<number, string> = {
  514: '2.0.2',
  528: '2.1',
  768: '3.0',
  770: '3.0.2',
  785: '3.1.1',
  767: '2.x (wildcard)',
};

/** The SMB dialect a server chose in its NEGOTIATE response (SMB2), or SMB1 when it answered so. */
export function smbDialect(bytes: Buffer): string | null {
  if (bytes.length < 8 || bytes[0] !== 0x00) return null;
  const magic = bytes.subarray(4, 8).toString('latin1');
  if (magic === '\xffSMB') return '1';
  if (magic !== '\xfeSMB' || bytes.length < 4 + 64 + 6) return null;
  if (bytes.readUInt16LE(4 + 12) !== 0) return null; // not a NEGOTIATE
  const body = 4 + 64;
  if (bytes.readUInt16LE(body) !== 65) return null;
  const dialect = bytes.readUInt16LE(body + 4);
  return SMB_DIALECTS[dialect] ?? `0x${dialect.toString(16)}`;
}

export function smb(bytes: Buffer): ServiceGuess | null {
  const dialect = smbDialect(bytes);
  return dialect ? guess('smb', null, null, `SMB negotiate: dialect ${dialect}`) : null;
}

interface Tlv {
  tag: number;
  start: number;
  end: number;
}

/** One BER element at `at` within `limit`, or null. */
function berAt(bytes: Buffer, at: number, limit: number): Tlv | null {
  if (at + 2 > limit) return null;
  const tag = bytes[at]!;
  let length = bytes[at + 1]!;
  let start = at + 2;
  if (length & 0x80) {
    const count = length & 0x7f;
    if (count < 1 || count > 3 || start + count > limit) return null;
    length = 0;
    for (let i = 0; i < count; i++) length = (length << 8) | bytes[start + i]!;
    start += count;
  }
  // A length past what arrived: only what arrived is read.
  return { tag, start, end: Math.min(limit, start + length) };
}

/** The children of a constructed BER element. */
function berChildren(bytes: Buffer, parent: Tlv): Tlv[] {
  const found: Tlv[] = [];
  for (let at = parent.start; at < parent.end && found.length < 64; ) {
    const element = berAt(bytes, at, parent.end);
    if (!element) break;
    found.push(element);
    at = element.end;
  }
  return found;
}

/** The attributes of the first SearchResultEntry in an LDAP answer (names in lower case). */
export function readLdapEntry(bytes: Buffer): Map<string, string[]> | null {
  const message = berAt(bytes, 0, bytes.length);
  if (message?.tag !== 0x30) return null;
  const [id, operation] = berChildren(bytes, message);
  if (id?.tag !== 0x02 || !operation) return null;
  if (operation.tag === 0x65) return new Map(); // SearchResultDone without an entry
  if (operation.tag !== 0x64) return null;
  const [, attributeList] = berChildren(bytes, operation);
  const attributes = new Map<string, string[]>();
  for (const attribute of attributeList ? berChildren(bytes, attributeList) : []) {
    const [type, values] = berChildren(bytes, attribute);
    if (!type || !values) continue;
    const name = bytes.subarray(type.start, type.end).toString('utf8').toLowerCase();
    attributes.set(
      name,
      berChildren(bytes, values)
        .slice(0, 16)
        .map((v) => bytes.subarray(v.start, Math.min(v.end, v.start + 256)).toString('utf8')),
    );
  }
  return attributes;
}

/** LDAP products by the vendorName a root DSE gives. */
const LDAP_VENDORS: readonly [RegExp, string][] = [
  [/openldap/i, 'OpenLDAP'],
  [/389 project|fedora project/i, '389 Directory Server'],
];

export function ldap(bytes: Buffer): ServiceGuess | null {
  const entry = readLdapEntry(bytes);
  if (!entry) return null;
  const vendorName = entry.get('vendorname')?.[0] ?? '';
  const vendorVersion = entry.get('vendorversion')?.[0] ?? '';
  const product = LDAP_VENDORS.find(([pattern]) => pattern.test(vendorName))?.[1] ?? null;
  const version = new RegExp(`(${VERSION})`).exec(vendorVersion)?.[1] ?? null;
  const versions = entry.get('supportedldapversion')?.join(',');
  const said = [vendorName, vendorVersion].filter(Boolean).join(' ');
  return guess(
    'ldap',
    product,
    version,
    said ? `LDAP root DSE: ${said}` : `LDAP root DSE${versions ? ` (LDAPv${versions})` : ''}`,
  );
}

/** The TXT text of a DNS answer to our version.bind query (TCP framing included), or null. */
export function readDnsVersion(bytes: Buffer): { text: string | null; rcode: number } | null {
  if (bytes.length < 14) return null;
  const message = bytes.subarray(2, 2 + Math.min(bytes.readUInt16BE(0), bytes.length - 2));
  if (message.length < 12 || message.readUInt16BE(0) !== DNS_QUERY_ID) return null;
  const flags = message.readUInt16BE(2);
  if (!(flags & 0x8000)) return null; // not a response
  const rcode = flags & 0x0f;
  const questions = message.readUInt16BE(4);
  const answers = message.readUInt16BE(6);
  let at = 12;
  for (let i = 0; i < questions; i++) {
    at = skipName(message, at);
    if (at < 0) return { text: null, rcode };
    at += 4;
  }
  for (let i = 0; i < answers && at < message.length; i++) {
    at = skipName(message, at);
    if (at < 0 || at + 10 > message.length) break;
    const type = message.readUInt16BE(at);
    const length = message.readUInt16BE(at + 8);
    at += 10;
    if (type === 16 && length > 0 && at < message.length) {
      const size = message[at]!;
      return {
        text: message.subarray(at + 1, Math.min(at + 1 + size, message.length)).toString('latin1'),
        rcode,
      };
    }
    at += length;
  }
  return { text: null, rcode };
}

/** After a (possibly compressed) name; -1 when it runs off the message. */
function skipName(message: Buffer, at: number): number {
  for (let labels = 0; at < message.length && labels < 128; labels++) {
    const length = message[at]!;
    if (length === 0) return at + 1;
    if ((length & 0xc0) === 0xc0) return at + 2;
    at += 1 + length;
  }
  return -1;
}

const DNS_PRODUCTS: readonly [RegExp, string][] = [
  [new RegExp(`^dnsmasq-(${VERSION})`), 'dnsmasq'],
  [new RegExp(`^(${VERSION})`), 'BIND'],
  [new RegExp(`^PowerDNS Recursor (${VERSION})`), 'PowerDNS Recursor'],
  [new RegExp(`^PowerDNS Authoritative Server (${VERSION})`), 'PowerDNS Authoritative Server'],
  [new RegExp(`^unbound (${VERSION})`, 'i'), 'Unbound'],
  [new RegExp(`^Knot DNS (${VERSION})`), 'Knot DNS'],
];

export function dns(bytes: Buffer): ServiceGuess | null {
  const answer = readDnsVersion(bytes);
  if (!answer) return null;
  const text = answer.text?.trim() ?? '';
  for (const [pattern, product] of DNS_PRODUCTS) {
    const match = pattern.exec(text);
    // BIND answers with the bare version ("9.18.28-1~deb12u2-Debian"): the release is the x.y.z.
    if (match) {
      const version = product === 'BIND' ? (/^\d+\.\d+\.\d+/.exec(match[1]!)?.[0] ?? null) : match[1]!;
      return guess('dns', product, version, `version.bind: ${text}`);
    }
  }
  return guess('dns', null, null, text ? `version.bind: ${text}` : `DNS answer (rcode ${answer.rcode})`);
}
