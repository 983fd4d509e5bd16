import nodemailer from 'nodemailer';
import { describeServer, type MailSettings } from './settings.js';

/** One message: `to` is one address or several; both bodies are always sent (multipart/alternative). */
export interface MailMessage {
  to: string | string[];
  subject: string;
  text: string;
  html: string;
  attachments?: { filename: string; content: Buffer | string; contentType?: string }[];
}

export interface SentMail {
  messageId: string;
  accepted: string[];
  rejected: string[];
}

/** Why a message was not sent, by kind, so that callers decide whether to try again. */
export type MailErrorKind =
  | 'NotConfigured'
  | 'ConnectionFailed'
  | 'Timeout'
  | 'TlsFailed'
  | 'AuthRefused'
  | 'Rejected'
  | 'Aborted'
  | 'Failed';

/**
 * A message not sent, with a sentence an operator can act on (the server's address, never the
 * password). `retryable` is false only when sending the same message again cannot succeed.
 */
export class MailError extends Error {
  constructor(
    readonly kind: MailErrorKind,
    message: string,
    readonly retryable: boolean,
    readonly responseCode?: number,
  ) {
    super(message);
    this.name = 'MailError';
  }
}

/** Time limits of one delivery: a server that stops answering fails the send, never hangs it. */
const TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 60_000 };

/**
 * Sends Rampart's email through the configured SMTP server (nodemailer): smtps:// with TLS from
 * the first byte, smtp:// with STARTTLS (required with a password unless the URL says
 * `starttls=offered`). Every failure becomes a MailError with a human sentence.
 */
export class Mailer {
  constructor(private readonly settings: MailSettings | null) {}

  /** Whether an SMTP server is configured: without one, email deliveries wait and say so. */
  get configured(): boolean {
    return this.settings !== null;
  }

  /** The server as the UI and logs may show it (no credentials), or null when not configured. */
  get server(): string | null {
    return this.settings ? describeServer(this.settings) : null;
  }

  async send(message: MailMessage, signal?: AbortSignal): Promise<SentMail> {
    const s = this.settings;
    if (!s)
      throw new MailError(
        'NotConfigured',
        'Email is not configured: set RAMPART_SMTP_URL and RAMPART_MAIL_FROM on the server.',
        true,
      );
    if (signal?.aborted) throw new MailError('Aborted', 'The delivery was stopped before it began.', true);
    // One connection per message: a send never waits behind another's, and a failed one leaves
    // no half-open connection for the next.
    const transport = nodemailer.createTransport({
      host: s.host,
      port: s.port,
      secure: s.implicitTls,
      requireTLS: !s.implicitTls && s.starttls === 'required',
      ...(s.user ? { auth: { user: s.user, pass: s.password ?? '' } } : {}),
      tls: {
        servername: s.host,
        rejectUnauthorized: s.rejectUnauthorized,
        ...(s.ca ? { ca: s.ca } : {}),
      },
      ...TIMEOUTS,
      logger: false,
      debug: false,
      disableFileAccess: true,
      disableUrlAccess: true,
    });
    let onAbort: (() => void) | undefined;
    try {
      const sent = transport.sendMail({
        from: s.from,
        to: message.to,
        subject: message.subject,
        text: message.text,
        html: message.html,
        attachments: message.attachments ?? [],
      });
      const aborted = new Promise<never>((_, reject) => {
        onAbort = () => {
          transport.close();
          reject(new MailError('Aborted', 'The delivery was stopped while it was being sent.', true));
        };
        signal?.addEventListener('abort', onAbort, { once: true });
      });
      const info = await Promise.race([sent, aborted]);
      return {
        messageId: String(info.messageId ?? ''),
        accepted: (info.accepted ?? []).map(String),
        rejected: (info.rejected ?? []).map(String),
      };
    } catch (error) {
      throw error instanceof MailError ? error : mailErrorOf(error, describeServer(s));
    } finally {
      if (onAbort) signal?.removeEventListener('abort', onAbort);
      transport.close();
    }
  }
}

interface NodemailerError {
  code?: string;
  responseCode?: number;
  response?: string;
  message?: string;
  command?: string;
  errno?: string;
  cause?: unknown;
}

/** The first line of the server's answer, bounded: it goes into delivery logs and the UI. */
function firstLine(text: string | undefined): string {
  return (text ?? '').split(/\r?\n/)[0]!.slice(0, 200);
}

/** A nodemailer failure as a MailError naming what went wrong at `server`. */
export function mailErrorOf(error: unknown, server: string): MailError {
  const e = (error ?? {}) as NodemailerError;
  const text = `${e.message ?? ''} ${(e.cause as NodemailerError | undefined)?.code ?? ''} ${e.errno ?? ''}`;
  if (/ECONNREFUSED/.test(text))
    return new MailError(
      'ConnectionFailed',
      `The SMTP server ${server} refused the connection: is it running, and is RAMPART_SMTP_URL right?`,
      true,
    );
  if (/ENOTFOUND|EAI_AGAIN/.test(text) || e.code === 'EDNS')
    return new MailError('ConnectionFailed', `The SMTP server's name in ${server} does not resolve.`, true);
  if (e.code === 'EAUTH' || e.responseCode === 535 || e.responseCode === 534)
    return new MailError(
      'AuthRefused',
      `The SMTP server ${server} refused the user name and password (${firstLine(e.response) || e.responseCode || 'authentication failed'}): check RAMPART_SMTP_USER and RAMPART_SMTP_PASSWORD.`,
      true,
      e.responseCode,
    );
  if (e.code === 'ENOAUTH')
    return new MailError('AuthRefused', `The SMTP server ${server} asks for a user name and password.`, true);
  if (
    e.code === 'ETLS' ||
    /certificate|CERT_|SSL|TLS|wrong version number|handshake/i.test(e.message ?? '') ||
    e.code === 'EREQUIRETLS'
  )
    return new MailError(
      'TlsFailed',
      `TLS with the SMTP server ${server} failed (${firstLine(e.message)}): for a private CA set RAMPART_SMTP_TLS_CA; for a server without STARTTLS add ?starttls=offered.`,
      true,
    );
  if (e.code === 'ETIMEDOUT' || /timed? ?out/i.test(e.message ?? ''))
    return new MailError('Timeout', `The SMTP server ${server} did not answer in time.`, true);
  if (e.code === 'EENVELOPE' || (e.responseCode !== undefined && e.responseCode >= 500))
    return new MailError(
      'Rejected',
      `The SMTP server ${server} refused the message: ${firstLine(e.response ?? e.message)}`,
      false,
      e.responseCode,
    );
  if (e.responseCode !== undefined && e.responseCode >= 400)
    return new MailError(
      'Failed',
      `The SMTP server ${server} deferred the message: ${firstLine(e.response ?? e.message)}`,
      true,
      e.responseCode,
    );
  if (e.code === 'ESOCKET' || e.code === 'ECONNECTION')
    return new MailError(
      'ConnectionFailed',
      `The connection to the SMTP server ${server} failed: ${firstLine(e.message)}`,
      true,
    );
  return new MailError(
    'Failed',
    `Sending through ${server} failed: ${firstLine(e.message) || 'unknown error'}`,
    true,
  );
}
