// What one open port is, and what the safe checks find on it: the service's own first words, else
// the request its port suggests, else TLS (and the banner or HTTP inside it). Every step within the
// port's deadline; only reads, never a write. The one login is FTP's anonymous one (the safe
// checks), followed by nothing but QUIT.

import {
  dnsVersionQuery,
  httpRequest,
  identify,
  ldapRootDseSearch,
  MEMCACHED_VERSION,
  MONGODB_BUILD_INFO,
  MONGODB_LIST_DATABASES,
  type ProbeName,
  postgresStartup,
  printable,
  RDP_CONNECTION_REQUEST,
  REDIS_INFO,
  REDIS_PING,
  readMongodbReply,
  readSshKexinit,
  type ServiceGuess,
  smbNegotiate,
  weakSshAlgorithms,
} from '../fingerprints/index.js';
import type { CheckResult, ScannedService } from '../types.js';
import { Conversation } from './conversation.js';

/** What is kept of a banner or an answer. */
export const BANNER_CAP = 4096;
/** An SSH KEXINIT is about a kilobyte; a server's long lists stay well under this. */
const KEXINIT_CAP = 16_384;
/** How long a service may take to speak first. */
export const BANNER_WAIT_MS = 1500;
/** How long an answer to one of our requests may take. */
const ANSWER_WAIT_MS = 3000;
/** How long a goodbye (`221`) is waited for before the connection is closed anyway. */
const QUIT_WAIT_MS = 1000;

const SUGGESTED: ReadonlyMap<number, ProbeName> = new Map([
  ...[80, 81, 591, 3000, 5000, 5601, 8000, 8008, 8080, 8081, 8088, 8888, 9000, 9090, 9200].map(
    (p) => [p, 'http'] as const,
  ),
  [6379, 'redis'],
  [11211, 'memcached'],
  [5432, 'postgresql'],
  [27017, 'mongodb'],
  [27018, 'mongodb'],
  [3389, 'rdp'],
  [445, 'smb'],
  [389, 'ldap'],
  [3268, 'ldap'],
  [53, 'dns'],
]);

const REQUESTS: Record<ProbeName, (host: string) => Buffer> = {
  http: httpRequest,
  redis: () => REDIS_PING,
  memcached: () => MEMCACHED_VERSION,
  postgresql: postgresStartup,
  mongodb: () => MONGODB_BUILD_INFO,
  rdp: () => RDP_CONNECTION_REQUEST,
  smb: smbNegotiate,
  ldap: ldapRootDseSearch,
  dns: dnsVersionQuery,
};

export interface PortContext {
  address: string;
  port: number;
  hostname: string | null;
  signal: AbortSignal;
  monotonic: () => number;
  deadline: number;
  connectTimeoutMs: number;
  safeChecks: boolean;
}

export interface PortFindings {
  service: ScannedService | null;
  checks: CheckResult[];
  /** The port's deadline came before every step was done. */
  cut: boolean;
}

/** The first line of a banner: printable, at most 512 characters; null when there is none. */
export function bannerLine(bytes: Buffer): string | null {
  const line = printable(bytes.subarray(0, BANNER_CAP).toString('latin1').split(/\r?\n/)[0] ?? '')
    .trim()
    .slice(0, 512);
  return line === '' ? null : line;
}

export async function examinePort(context: PortContext): Promise<PortFindings> {
  const checks: CheckResult[] = [];
  const check = (checkId: string, evidence: string, details?: Record<string, unknown>) => {
    if (context.safeChecks)
      checks.push({
        checkId,
        port: context.port,
        url: null,
        evidence: evidence.slice(0, 4000),
        ...(details ? { details } : {}),
      });
  };
  const plain = await speakPlain(context, check);
  let found = plain;
  let tls = false;
  if (!plain.guess && !context.signal.aborted && !expired(context)) {
    const inside = await speakTls(context, check);
    if (inside) {
      found = inside;
      tls = true;
    } else if (!plain.asked) {
      // Neither speaks first, nor has a suggested probe, nor TLS: most such ports are HTTP; Redis
      // is the other common service that waits for the client (and closes on an HTTP request).
      for (const probe of FALLBACK_PROBES) {
        if (expired(context) || context.signal.aborted) break;
        found = await speakFresh(context, probe, check);
        if (found.guess) break;
      }
    }
  }
  if (found.guess?.product && found.guess.version)
    check('service.version-disclosed', found.guess.evidence, {
      product: found.guess.product,
      version: found.guess.version,
    });
  const service: ScannedService | null =
    found.guess || tls
      ? {
          port: context.port,
          protocol: 'tcp',
          service: serviceName(found.guess?.service ?? null, tls),
          product: found.guess?.product ?? null,
          version: found.guess?.version ?? null,
          cpes: found.guess?.cpes ?? [],
          confidence: found.guess?.confidence ?? 0.3,
          banner: found.banner,
          evidence: found.guess?.evidence ?? 'TLS handshake completed',
          tls,
          detectedBy: 'rampart',
        }
      : null;
  return { service, checks, cut: expired(context) && !context.signal.aborted };
}

function serviceName(service: string | null, tls: boolean): string | null {
  if (!tls) return service;
  const implicit: Record<string, string> = {
    http: 'https',
    imap: 'imaps',
    pop3: 'pop3s',
    smtp: 'smtps',
    ftp: 'ftps',
  };
  return service ? (implicit[service] ?? service) : 'tls';
}

function expired(context: PortContext): boolean {
  return context.monotonic() >= context.deadline;
}

interface Heard {
  guess: ServiceGuess | null;
  banner: string | null;
  /** A request was sent (the port's suggested probe). */
  asked?: boolean;
}

type Check = (checkId: string, evidence: string, details?: Record<string, unknown>) => void;

function open(context: PortContext, tls: boolean, cap = BANNER_CAP) {
  return Conversation.open(context.address, context.port, {
    monotonic: context.monotonic,
    deadline: context.deadline,
    signal: context.signal,
    tls: tls ? { servername: context.hostname } : null,
    maxBytes: cap,
    connectTimeoutMs: context.connectTimeoutMs,
  });
}

/** The plain-TCP steps: what the service says first, else the probe its port suggests. */
async function speakPlain(context: PortContext, check: Check): Promise<Heard> {
  const talk = await open(context, false, KEXINIT_CAP);
  if (!talk) return { guess: null, banner: null };
  try {
    const first = await talk.read(0, wholeGreeting, BANNER_WAIT_MS);
    if (first.length > 0) {
      const guess = identify({ port: context.port, banner: first.subarray(0, BANNER_CAP) });
      if (guess) await followUp(talk, guess, first, context, check);
      return { guess, banner: bannerLine(first) };
    }
    const probe = SUGGESTED.get(context.port);
    if (!probe || talk.expired) return { guess: null, banner: null };
    return { ...(await askProbe(talk, probe, context, check)), asked: true };
  } finally {
    talk.close();
  }
}

/** A line, Telnet negotiation, or a whole length-prefixed packet (the MySQL greeting). */
function wholeGreeting(b: Buffer): boolean {
  if (b.includes(0x0a) || b[0] === 0xff) return true;
  return b.length >= 4 && b.length >= 4 + (b[0]! | (b[1]! << 8) | (b[2]! << 16));
}

/** Probes tried in turn on a port that neither speaks first nor suggests one. */
const FALLBACK_PROBES: readonly ProbeName[] = ['http', 'redis'];

/** One probe on a new plain connection. */
async function speakFresh(context: PortContext, probe: ProbeName, check: Check): Promise<Heard> {
  const talk = await open(context, false);
  if (!talk) return { guess: null, banner: null };
  try {
    return await askProbe(talk, probe, context, check);
  } finally {
    talk.close();
  }
}

/** Inside TLS: the banner, else an HTTP request. Null when the port does not speak TLS. */
async function speakTls(context: PortContext, check: Check): Promise<Heard | null> {
  const talk = await open(context, true);
  if (!talk) return null;
  try {
    const first = await talk.read(0, (b) => b.includes(0x0a), BANNER_WAIT_MS);
    if (first.length > 0) {
      const guess = identify({ port: context.port, banner: first });
      if (guess) await followUp(talk, guess, first, context, check, true);
      return { guess, banner: bannerLine(first) };
    }
    if (talk.expired) return { guess: null, banner: null };
    return await askProbe(talk, 'http', context, check);
  } finally {
    talk.close();
  }
}

async function askProbe(
  talk: Conversation,
  probe: ProbeName,
  context: PortContext,
  check: Check,
): Promise<Heard> {
  const host = context.hostname ?? context.address;
  const answer = await talk.ask(REQUESTS[probe](host), completeAnswer(probe), ANSWER_WAIT_MS);
  if (answer.length === 0) return { guess: null, banner: null };
  const guess = identify({ port: context.port, banner: answer.subarray(0, BANNER_CAP), probe });
  if (!guess) return { guess: null, banner: bannerLine(answer) };
  if (probe === 'redis')
    return { guess: await redisFollowUp(talk, guess, answer, context, check), banner: bannerLine(answer) };
  if (probe === 'mongodb') await mongodbFollowUp(talk, context, check);
  if (probe === 'memcached') check('noauth.memcached', guess.evidence);
  return { guess, banner: bannerLine(answer) };
}

/** When an answer is whole enough to read: a line for text protocols, the framing for binary ones. */
function completeAnswer(probe: ProbeName): (bytes: Buffer) => boolean {
  switch (probe) {
    case 'http':
      return (b) => b.includes('\r\n\r\n') || b.includes('\n\n');
    case 'redis':
    case 'memcached':
      return (b) => b.includes(0x0a);
    case 'mongodb':
      return (b) => b.length >= 4 && b.length >= b.readInt32LE(0);
    case 'postgresql':
      // Authentication requests, then an ErrorResponse or ReadyForQuery: wait for the 'E' or 'Z'.
      return (b) =>
        b.length > 0 &&
        (b[0] === 0x45
          ? b.length >= 5 && b.length >= 1 + b.readUInt32BE(1)
          : b.includes(0x45) || b.includes(0x5a));
    case 'rdp':
      return (b) => b.length >= 4 && b.length >= b.readUInt16BE(2);
    case 'smb':
      return (b) => b.length >= 4 && b.length >= 4 + (b.readUInt32BE(0) & 0xffffff);
    case 'dns':
      return (b) => b.length >= 2 && b.length >= 2 + b.readUInt16BE(0);
    case 'ldap':
      // SearchResultDone (APPLICATION 5) ends the search.
      return (b) => b.includes(Buffer.from([0x65]));
  }
}

/** Redis answered PING: PONG means no password was needed; INFO then names the version. */
async function redisFollowUp(
  talk: Conversation,
  guess: ServiceGuess,
  answer: Buffer,
  context: PortContext,
  check: Check,
): Promise<ServiceGuess> {
  if (!answer.subarray(0, 7).toString('latin1').startsWith('+PONG')) return guess;
  check('noauth.redis', 'PING answered +PONG without AUTH');
  if (talk.expired) return guess;
  const info = await talk.ask(
    REDIS_INFO,
    (b) => /\r\n\r\n$|redis_mode:/.test(b.toString('latin1')),
    ANSWER_WAIT_MS,
  );
  return identify({ port: context.port, banner: info, probe: 'redis' }) ?? guess;
}

/** MongoDB answered buildInfo: listDatabases (a read) tells whether authorization is off. */
async function mongodbFollowUp(talk: Conversation, context: PortContext, check: Check): Promise<void> {
  if (talk.expired || !context.safeChecks) return;
  const answer = await talk.ask(
    MONGODB_LIST_DATABASES,
    (b) => b.length >= 4 && b.length >= b.readInt32LE(0),
    ANSWER_WAIT_MS,
  );
  const reply = readMongodbReply(answer);
  if (reply?.get('ok') === 1) check('noauth.mongodb', 'listDatabases answered ok: 1 without credentials');
}

/** After a greeting: the protocol's capability question, for the cleartext and SSH checks. */
async function followUp(
  talk: Conversation,
  guess: ServiceGuess,
  greeting: Buffer,
  context: PortContext,
  check: Check,
  tls = false,
): Promise<void> {
  const line = bannerLine(greeting) ?? '';
  switch (guess.service) {
    case 'telnet':
      check('cleartext.telnet', guess.evidence);
      return;
    case 'ssh':
      if (/^SSH-1\./.test(line)) check('ssh.protocol-1', line);
      if (context.safeChecks) await sshAlgorithms(talk, line, check);
      return;
    case 'ftp':
      if (!tls && context.safeChecks) await ftpChecks(talk, line, check);
      return;
    case 'smtp':
    case 'imap':
    case 'pop3':
      if (!tls && context.safeChecks) await mailTls(talk, guess.service, line, greeting, check);
      return;
  }
}

async function sshAlgorithms(talk: Conversation, line: string, check: Check): Promise<void> {
  if (!/^SSH-(2\.0|1\.99)-/.test(line)) return;
  talk.write(Buffer.from('SSH-2.0-Rampart_Scanner\r\n', 'latin1'));
  const bytes = await talk.read(0, (b) => readSshKexinit(b) !== null, ANSWER_WAIT_MS);
  const offer = readSshKexinit(bytes);
  if (!offer) return;
  const weak = weakSshAlgorithms(offer);
  if (weak.length > 0)
    check(
      'ssh.weak-algorithms',
      `${line}; weak algorithms offered: ${weak.map((w) => `${w.name} (${w.category}: ${w.reason})`).join('; ')}`,
      { weak, kex: offer.kex, hostKey: offer.hostKey, ciphers: offer.ciphers, macs: offer.macs },
    );
}

/** A reply whose last line is final (`211 End`, not `211-…`). */
function finalReply(code: RegExp): (bytes: Buffer) => boolean {
  return (b) => {
    const lines = b.toString('latin1').split(/\r?\n/);
    return lines.some((l) => code.test(l));
  };
}

/** FTP's safe checks: whether FEAT offers AUTH TLS, then whether anonymous may log in. */
async function ftpChecks(talk: Conversation, line: string, check: Check): Promise<void> {
  const reply = (await talk.ask(Buffer.from('FEAT\r\n'), finalReply(/^\d{3} /), ANSWER_WAIT_MS)).toString(
    'latin1',
  );
  if (reply === '') return;
  if (!/^\s*AUTH\b.*\bTLS\b/im.test(reply))
    check('cleartext.ftp', `${line}; FEAT does not offer AUTH TLS`, { feat: firstLines(reply) });
  if (talk.expired) return;
  await ftpAnonymous(talk, line, check);
  // After a login, the goodbye is waited for: the server ends the session it opened.
  if (!talk.expired) await talk.ask(Buffer.from('QUIT\r\n'), finalReply(/^\d{3} /), QUIT_WAIT_MS);
}

/**
 * The one login Rampart tries: `USER anonymous`, the customary e-mail address as password when the
 * server asks for one (RFC 1635), and nothing after it but QUIT — no listing, no transfer.
 */
async function ftpAnonymous(talk: Conversation, line: string, check: Check): Promise<void> {
  const ask = async (command: string) =>
    lastReply(
      (await talk.ask(Buffer.from(`${command}\r\n`), finalReply(/^\d{3} /), ANSWER_WAIT_MS)).toString(
        'latin1',
      ),
    );
  const user = await ask('USER anonymous');
  if (user === null) return;
  const steps = [`USER anonymous → ${user}`];
  let last = user;
  if (user.startsWith('331') && !talk.expired) {
    const pass = await ask('PASS rampart@example.invalid');
    if (pass === null) return;
    steps.push(`PASS → ${pass}`);
    last = pass;
  }
  if (last.startsWith('230')) check('ftp.anonymous-login', `${line}; ${steps.join('; ')}`, { steps });
}

/** The final line of an FTP reply (`230 Login successful.`), printable; null when none came. */
function lastReply(text: string): string | null {
  const final = text.split(/\r?\n/).findLast((l) => /^\d{3} /.test(l));
  return final === undefined ? null : printable(final).trim().slice(0, 200);
}

async function mailTls(
  talk: Conversation,
  service: 'smtp' | 'imap' | 'pop3',
  line: string,
  greeting: Buffer,
  check: Check,
): Promise<void> {
  const greetingText = greeting.toString('latin1');
  let capabilities: string;
  if (service === 'imap' && /\[CAPABILITY [^\]]*\]/i.test(greetingText)) capabilities = greetingText;
  else {
    const [request, done] =
      service === 'smtp'
        ? [`EHLO rampart.invalid\r\n`, finalReply(/^\d{3} /)]
        : service === 'imap'
          ? ['r1 CAPABILITY\r\n', finalReply(/^r1 /)]
          : ['CAPA\r\n', finalReply(/^(\.|-ERR)/)];
    capabilities = (await talk.ask(Buffer.from(request), done, ANSWER_WAIT_MS)).toString('latin1');
    if (capabilities === '') return;
  }
  const offered = service === 'pop3' ? /^STLS\b/im : /\bSTARTTLS\b/i;
  if (!offered.test(capabilities))
    check(
      'cleartext.mail',
      `${line}; capabilities do not offer ${service === 'pop3' ? 'STLS' : 'STARTTLS'}`,
      {
        capabilities: firstLines(capabilities),
      },
    );
  talk.write(Buffer.from(service === 'imap' ? 'r2 LOGOUT\r\n' : 'QUIT\r\n'));
}

function firstLines(text: string): string[] {
  return text
    .split(/\r?\n/, 32)
    .map((l) => printable(l).trim().slice(0, 200))
    .filter(Boolean);
}
