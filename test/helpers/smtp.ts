// A real SMTP server on loopback for the tests (smtp-server, nodemailer's project): STARTTLS or
// TLS from the start with a certificate made at test time, AUTH PLAIN/LOGIN against one user, and
// every message received kept and read back (headers, text and HTML bodies).
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { makeCertificate, type TestCertificate } from '../scanning/tls/certs.js';

export interface ReceivedMail {
  from: string;
  to: string[];
  /** The authenticated user, or null. */
  user: string | null;
  /** Whether the message came over TLS (STARTTLS or implicit). */
  secure: boolean;
  headers: Record<string, string>;
  subject: string;
  text: string;
  html: string;
  raw: string;
}

export interface TestSmtpServer {
  port: number;
  cert: TestCertificate;
  received: ReceivedMail[];
  /** Resolves with the first `count` messages, or rejects after `timeoutMs`. */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedMail[]>;
  /** The smtp:// (or smtps://) URL of this server, with the user's credentials when given. */
  url(credentials?: { user: string; password: string }): string;
  close(): Promise<void>;
}

let certificate: TestCertificate | undefined;
/** One certificate per test file: openssl takes a moment. */
export function smtpCertificate(): TestCertificate {
  certificate ??= makeCertificate({ commonName: 'localhost', altNames: ['DNS:localhost', 'IP:127.0.0.1'] });
  return certificate;
}

export async function startSmtpServer(
  options: { implicitTls?: boolean; user?: string; password?: string } = {},
): Promise<TestSmtpServer> {
  const cert = smtpCertificate();
  const received: ReceivedMail[] = [];
  const waiters: (() => void)[] = [];
  const user = options.user ?? 'rampart';
  const password = options.password ?? 'correct horse battery staple';
  const server = new SMTPServer({
    secure: options.implicitTls ?? false,
    key: cert.key,
    cert: cert.cert,
    authMethods: ['PLAIN', 'LOGIN'],
    authOptional: false,
    // AUTH only after STARTTLS, as a real submission server insists.
    allowInsecureAuth: false,
    logger: false,
    disableReverseLookup: true,
    size: 10 * 1024 * 1024,
    onAuth(auth, _session, callback) {
      if (auth.username === user && auth.password === password)
        return callback(null, { user: auth.username });
      const refused = new Error('5.7.8 Authentication credentials invalid') as Error & {
        responseCode: number;
      };
      refused.responseCode = 535;
      return callback(refused);
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          user: (session.user as string | undefined) ?? null,
          secure: session.secure,
          ...parseMessage(raw),
          raw,
        });
        for (const w of waiters.splice(0)) w();
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  server.on('error', () => {});
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    cert,
    received,
    waitFor: (count, timeoutMs = 15_000) =>
      new Promise((resolve, reject) => {
        const deadline = setTimeout(
          () => reject(new Error(`expected ${count} mail(s), got ${received.length}`)),
          timeoutMs,
        );
        const check = () => {
          if (received.length >= count) {
            clearTimeout(deadline);
            resolve(received.slice(0, count));
          } else waiters.push(check);
        };
        check();
      }),
    url: (credentials) => {
      const auth = credentials
        ? `${encodeURIComponent(credentials.user)}:${encodeURIComponent(credentials.password)}@`
        : '';
      return `${options.implicitTls ? 'smtps' : 'smtp'}://${auth}localhost:${port}`;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

// ---- a small MIME reader: enough for what nodemailer writes (multipart, QP and base64) ----

function splitHead(raw: string): { head: string; body: string } {
  const at = raw.indexOf('\r\n\r\n');
  return at < 0 ? { head: raw, body: '' } : { head: raw.slice(0, at), body: raw.slice(at + 4) };
}

function headersOf(head: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of head.replace(/\r\n[ \t]+/g, ' ').split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return headers;
}

/** RFC 2047 encoded words (=?UTF-8?Q?…?= and =?UTF-8?B?…?=). */
export function decodeWords(text: string): string {
  return text
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?([^?]+)\?([QqBb])\?([^?]*)\?=/g, (_, _charset, enc: string, data: string) =>
      enc.toUpperCase() === 'B'
        ? Buffer.from(data, 'base64').toString('utf8')
        : decodeQuotedPrintable(data.replace(/_/g, ' ')),
    );
}

function decodeQuotedPrintable(text: string): string {
  const bytes: number[] = [];
  const soft = text.replace(/=\r?\n/g, '');
  for (let i = 0; i < soft.length; i++) {
    if (soft[i] === '=' && /^[0-9A-Fa-f]{2}$/.test(soft.slice(i + 1, i + 3))) {
      bytes.push(Number.parseInt(soft.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(...Buffer.from(soft[i]!, 'utf8'));
  }
  return Buffer.from(bytes).toString('utf8');
}

function decodeBody(body: string, encoding: string | undefined): string {
  switch ((encoding ?? '7bit').toLowerCase()) {
    case 'quoted-printable':
      return decodeQuotedPrintable(body);
    case 'base64':
      return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
    default:
      return body;
  }
}

/** The parts of a message by content type (text/plain, text/html), nested multiparts included. */
function partsOf(head: Record<string, string>, body: string, into: Map<string, string>): void {
  const type = head['content-type'] ?? 'text/plain';
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  if (type.toLowerCase().startsWith('multipart/') && boundary) {
    for (const chunk of body.split(`--${boundary}`).slice(1)) {
      if (chunk.startsWith('--')) break;
      const part = splitHead(chunk.replace(/^\r\n/, ''));
      partsOf(headersOf(part.head), part.body.replace(/\r\n$/, ''), into);
    }
    return;
  }
  const mime = type.split(';')[0]!.trim().toLowerCase();
  // Lines end in CRLF on the wire; the tests compare them as written.
  if (!into.has(mime))
    into.set(mime, decodeBody(body, head['content-transfer-encoding']).replace(/\r\n/g, '\n'));
}

export function parseMessage(raw: string): Pick<ReceivedMail, 'headers' | 'subject' | 'text' | 'html'> {
  const { head, body } = splitHead(raw);
  const headers = headersOf(head);
  const parts = new Map<string, string>();
  partsOf(headers, body, parts);
  return {
    headers,
    subject: decodeWords(headers.subject ?? ''),
    text: parts.get('text/plain') ?? '',
    html: parts.get('text/html') ?? '',
  };
}
