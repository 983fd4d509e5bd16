// The active probes: one request each, safe to send to anyone (no login, no write, nothing that
// changes the server), for services that wait for the client to speak first. Each is the exact
// bytes of its protocol's first message; the answers are read by the recognisers in binary.ts and
// protocols.ts. Pure data and pure builders: the engine sends them.

/** Which request produced a banner: the recogniser reads the answer as that protocol's reply. */
export type ProbeName =
  | 'http'
  | 'redis'
  | 'memcached'
  | 'postgresql'
  | 'mongodb'
  | 'rdp'
  | 'smb'
  | 'ldap'
  | 'dns';

/** The user a PostgreSQL startup names: no such role, so the server answers with an error. */
export const POSTGRES_PROBE_USER = 'rampart_probe';
/** requestID of our MongoDB messages, so that a reply to them can be recognised. */
export const MONGODB_REQUEST_ID = 0x52414d50;
/** The id of our DNS query. */
export const DNS_QUERY_ID = 0x5250;

/** `GET / HTTP/1.0` with a Host header (the name the target was given by, else the address). */
export function httpRequest(host: string): Buffer {
  const name = /^[A-Za-z0-9.:[\]-]{1,255}$/.test(host) ? host : 'localhost';
  return Buffer.from(
    `GET / HTTP/1.0\r\nHost: ${name}\r\nUser-Agent: Rampart\r\nAccept: */*\r\nConnection: close\r\n\r\n`,
    'latin1',
  );
}

/** Redis PING as a RESP array: `+PONG` unauthenticated, `-NOAUTH` when a password is required. */
export const REDIS_PING = Buffer.from('*1\r\n$4\r\nPING\r\n', 'latin1');
/** Redis INFO server, sent only after a PONG (the server answered without a password anyway). */
export const REDIS_INFO = Buffer.from('*2\r\n$4\r\nINFO\r\n$6\r\nserver\r\n', 'latin1');

/** memcached's text protocol: `VERSION 1.6.21`. */
export const MEMCACHED_VERSION = Buffer.from('version\r\n', 'latin1');

/** PostgreSQL SSLRequest: length 8, code 80877103; the server answers one byte, `S` or `N`. */
export const POSTGRES_SSL_REQUEST = Buffer.from([0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f]);

/** A PostgreSQL 3.0 StartupMessage for a role that does not exist: the answer is an ErrorResponse. */
export function postgresStartup(): Buffer {
  const parameters = Buffer.from(
    `user\0${POSTGRES_PROBE_USER}\0database\0${POSTGRES_PROBE_USER}\0\0`,
    'latin1',
  );
  const message = Buffer.alloc(8 + parameters.length);
  message.writeInt32BE(message.length, 0);
  message.writeInt32BE(196608, 4); // protocol 3.0
  parameters.copy(message, 8);
  return message;
}

/** A BSON document of strings, 32-bit integers and booleans (all our commands need). */
export function bson(fields: Record<string, string | number | boolean>): Buffer {
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    const key = Buffer.from(`${name}\0`, 'utf8');
    if (typeof value === 'string') {
      const text = Buffer.from(`${value}\0`, 'utf8');
      const length = Buffer.alloc(4);
      length.writeInt32LE(text.length);
      parts.push(Buffer.from([0x02]), key, length, text);
    } else if (typeof value === 'boolean') {
      parts.push(Buffer.from([0x08]), key, Buffer.from([value ? 1 : 0]));
    } else {
      const number = Buffer.alloc(4);
      number.writeInt32LE(value);
      parts.push(Buffer.from([0x10]), key, number);
    }
  }
  const body = Buffer.concat(parts);
  const document = Buffer.alloc(body.length + 5);
  document.writeInt32LE(document.length, 0);
  body.copy(document, 4);
  return document;
}

/** A MongoDB OP_MSG (opcode 2013) carrying one command document. */
export function mongodbCommand(
  command: Record<string, string | number | boolean>,
  requestId = MONGODB_REQUEST_ID,
): Buffer {
  const document = bson(command);
  const header = Buffer.alloc(21);
  header.writeInt32LE(21 + document.length, 0);
  header.writeInt32LE(requestId, 4);
  header.writeInt32LE(0, 8); // responseTo
  header.writeInt32LE(2013, 12); // OP_MSG
  header.writeUInt32LE(0, 16); // flagBits
  header[20] = 0; // section kind 0: the body
  return Buffer.concat([header, document]);
}

/** buildInfo answers without authentication and names the server's version. */
export const MONGODB_BUILD_INFO = mongodbCommand({ buildInfo: 1, $db: 'admin' });
/** listDatabases (names only, a read): answered only when authorization is off. */
export const MONGODB_LIST_DATABASES = mongodbCommand(
  { listDatabases: 1, nameOnly: true, $db: 'admin' },
  MONGODB_REQUEST_ID + 1,
);

/**
 * An X.224 Connection Request in TPKT with an RDP Negotiation Request for TLS and CredSSP
 * ([MS-RDPBCGR] 2.2.1.1): an RDP server answers with a Connection Confirm.
 */
export const RDP_CONNECTION_REQUEST = Buffer.from([
  0x03, 0x00, 0x00, 0x13, 0x0e, 0xe0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x08, 0x00, 0x03, 0x00, 0x00,
  0x00,
]);

/** An SMB2 NEGOTIATE request offering dialects 2.0.2, 2.1, 3.0 and 3.0.2 ([MS-SMB2] 2.2.3). */
export function smbNegotiate(): Buffer {
  const dialects = [0x0202, 0x0210, 0x0300, 0x0302];
  const header = Buffer.alloc(64);
  header.write('\xfeSMB', 0, 'latin1');
  header.writeUInt16LE(64, 4); // StructureSize
  header.writeUInt16LE(0, 12); // Command: NEGOTIATE
  header.writeUInt16LE(1, 14); // CreditRequest
  const body = Buffer.alloc(36 + dialects.length * 2);
  body.writeUInt16LE(36, 0); // StructureSize
  body.writeUInt16LE(dialects.length, 2);
  body.writeUInt16LE(1, 4); // SecurityMode: signing enabled
  Buffer.from('52616d706172742d70726f6265000001', 'hex').copy(body, 12); // ClientGuid
  dialects.forEach((dialect, i) => {
    body.writeUInt16LE(dialect, 36 + i * 2);
  });
  const message = Buffer.concat([header, body]);
  const session = Buffer.alloc(4);
  session.writeUInt32BE(message.length, 0); // NetBIOS session message, type 0
  return Buffer.concat([session, message]);
}

/** BER: a tag, its definite length, its contents. */
function ber(tag: number, ...contents: Buffer[]): Buffer {
  const body = Buffer.concat(contents);
  const length =
    body.length < 0x80
      ? Buffer.from([body.length])
      : Buffer.from([0x82, (body.length >> 8) & 0xff, body.length & 0xff]);
  return Buffer.concat([Buffer.from([tag]), length, body]);
}

const octets = (text: string) => ber(0x04, Buffer.from(text, 'utf8'));

/**
 * An anonymous LDAPv3 search of the root DSE (RFC 4511 4.5.1; base "", scope base,
 * filter (objectClass=*)) asking for the attributes that name the server.
 */
export function ldapRootDseSearch(): Buffer {
  const attributes = ['vendorName', 'vendorVersion', 'supportedLDAPVersion', 'namingContexts'];
  const search = ber(
    0x63,
    octets(''),
    ber(0x0a, Buffer.from([0])), // scope: baseObject
    ber(0x0a, Buffer.from([0])), // derefAliases: never
    ber(0x02, Buffer.from([0])), // sizeLimit
    ber(0x02, Buffer.from([5])), // timeLimit (seconds)
    ber(0x01, Buffer.from([0])), // typesOnly: false
    ber(0x87, Buffer.from('objectClass', 'latin1')), // filter: present
    ber(0x30, ...attributes.map(octets)),
  );
  return ber(0x30, ber(0x02, Buffer.from([1])), search);
}

/** A DNS query over TCP for `version.bind`, TXT, class CHAOS: servers that tell give their version. */
export function dnsVersionQuery(): Buffer {
  const question = Buffer.concat([
    Buffer.from([7]),
    Buffer.from('version', 'latin1'),
    Buffer.from([4]),
    Buffer.from('bind', 'latin1'),
    Buffer.from([0, 0x00, 0x10, 0x00, 0x03]), // root, TXT, CH
  ]);
  const header = Buffer.alloc(12);
  header.writeUInt16BE(DNS_QUERY_ID, 0);
  header.writeUInt16BE(0x0000, 2); // a standard query, no recursion
  header.writeUInt16BE(1, 4); // one question
  const message = Buffer.concat([header, question]);
  const length = Buffer.alloc(2);
  length.writeUInt16BE(message.length);
  return Buffer.concat([length, message]);
}
