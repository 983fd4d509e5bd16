import type { Config } from '../config.js';
import { smtpUrlProblem } from './url.js';

/** How Rampart reaches its SMTP server, read from RAMPART_SMTP_URL and the variables beside it. */
export interface MailSettings {
  host: string;
  port: number;
  /** smtps://: TLS from the first byte (port 465 by default). */
  implicitTls: boolean;
  /**
   * smtp:// only: `required` refuses to go on without STARTTLS; `offered` upgrades when the server
   * offers it and goes on in the clear otherwise (a relay on the local network).
   */
  starttls: 'required' | 'offered';
  user: string | null;
  /** Never logged, never shown: only given to the transport. */
  password: string | null;
  from: string;
  /** PEM text of the certificate authorities trusted for the server (RAMPART_SMTP_TLS_CA). */
  ca: string | null;
  /** false accepts any certificate (RAMPART_SMTP_TLS_REJECT_UNAUTHORIZED=false): for tests and labs only. */
  rejectUnauthorized: boolean;
}

export type MailConfig = Partial<
  Pick<
    Config,
    'smtpUrl' | 'smtpUser' | 'smtpPassword' | 'mailFrom' | 'smtpTlsCa' | 'smtpTlsRejectUnauthorized'
  >
>;

/** The server's address as messages and logs may show it: never the credentials. */
export function describeServer(settings: Pick<MailSettings, 'host' | 'port' | 'implicitTls'>): string {
  return `${settings.implicitTls ? 'smtps' : 'smtp'}://${settings.host}:${settings.port}`;
}

/**
 * The mail settings of a configuration, or null when no SMTP server is configured (email is then
 * "not configured": deliveries wait and say so). Throws with a sentence when the URL is unusable;
 * loadConfig checks the same at start, so a running server never meets it.
 */
export function mailSettingsOf(config: MailConfig, readFile: (path: string) => string): MailSettings | null {
  if (!config.smtpUrl) return null;
  const problem = smtpUrlProblem(config.smtpUrl);
  if (problem) throw new Error(`RAMPART_SMTP_URL: ${problem}`);
  const url = new URL(config.smtpUrl);
  const implicitTls = url.protocol === 'smtps:';
  const starttls = url.searchParams.get('starttls');
  const user = config.smtpUser ?? (url.username ? decodeURIComponent(url.username) : null);
  const password = config.smtpPassword ?? (url.password ? decodeURIComponent(url.password) : null);
  if (!config.mailFrom) throw new Error('RAMPART_MAIL_FROM: set the sender address of Rampart’s mail.');
  return {
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port: url.port ? Number(url.port) : implicitTls ? 465 : 587,
    implicitTls,
    // A password is never sent in the clear unless the URL says so.
    starttls:
      starttls === 'required' || starttls === 'offered' ? starttls : password ? 'required' : 'offered',
    user,
    password,
    from: config.mailFrom,
    ca: config.smtpTlsCa ? readFile(config.smtpTlsCa) : null,
    rejectUnauthorized: config.smtpTlsRejectUnauthorized ?? true,
  };
}
