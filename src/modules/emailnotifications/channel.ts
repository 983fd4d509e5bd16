import { performance } from 'node:perf_hooks';
import { MailError } from '../../mail/mailer.js';
import { renderEvent, renderEvents } from '../../mail/templates.js';
import type {
  ChannelTarget,
  DeliveryOutcome,
  NotificationChannel,
  NotificationEvent,
} from '../notifications/types.js';
import type { MailSender } from './service.js';

// The Email channel of notification rules: an Email endpoint's "URL" is a mailto: URL of its
// addresses (mailto:soc@example.com,lead@example.com), and each delivery is one email to all of
// them, made by the templates of src/mail from the events' CloudEvents envelopes.

/** The most addresses one Email endpoint sends to. */
export const MAX_ADDRESSES = 50;
/** How long a delivery waits before trying again while email is not configured on the server. */
const NOT_CONFIGURED_RETRY_MS = 15 * 60_000;

// Deliberately simple, as the users module checks sign-in addresses: one @, a dot in the domain.
const EMAIL = /^[^\s@,;<>"]+@[^\s@,;<>"]+\.[^\s@,;<>"]+$/;

/** The addresses of a mailto: URL, or a sentence saying what is wrong with it. */
export function addressesOf(url: string): string[] | { problem: string } {
  if (!/^mailto:/i.test(url))
    return { problem: 'An Email endpoint’s address is a mailto: URL, e.g. mailto:soc@example.com.' };
  const list = decodeURIComponent(url.slice('mailto:'.length).split('?')[0]!)
    .split(',')
    .map((a) => a.trim())
    .filter(Boolean);
  if (list.length === 0) return { problem: 'The mailto: URL names no address.' };
  if (list.length > MAX_ADDRESSES)
    return { problem: `At most ${MAX_ADDRESSES} addresses, not ${list.length}.` };
  const bad = list.find((a) => a.length > 254 || !EMAIL.test(a));
  if (bad) return { problem: `'${bad.slice(0, 100)}' is not an email address.` };
  return [...new Set(list.map((a) => a.toLowerCase()))];
}

/** The mailto: URL of addresses, as an Email endpoint keeps them. */
export function mailtoOf(addresses: string[]): string {
  return `mailto:${addresses.map((a) => a.trim().toLowerCase()).join(',')}`;
}

export function emailChannel(mailer: MailSender, baseUrl: string): NotificationChannel {
  return {
    kind: 'Email',
    async checkDestination(url) {
      const addresses = addressesOf(url);
      return Array.isArray(addresses) ? null : { rule: 'EmailAddress', message: addresses.problem };
    },
    async deliver(
      target: ChannelTarget,
      events: NotificationEvent[],
      signal: AbortSignal,
    ): Promise<DeliveryOutcome> {
      const started = performance.now();
      const elapsed = () => Math.round(performance.now() - started);
      const addresses = addressesOf(target.url);
      if (!Array.isArray(addresses))
        return { ok: false, durationMs: elapsed(), error: addresses.problem, permanent: true };
      if (!mailer.configured)
        return {
          ok: false,
          durationMs: elapsed(),
          error:
            'Email is not configured: set RAMPART_SMTP_URL and RAMPART_MAIL_FROM on the server. The delivery waits.',
          retryAfterMs: NOT_CONFIGURED_RETRY_MS,
        };
      const content =
        events.length === 1
          ? renderEvent(events[0]!, baseUrl)
          : renderEvents(events, baseUrl, {
              subject: `[Rampart] ${events.length} events for ${target.endpointName}`,
              intro: `${events.length} events matched the notification rules of “${target.endpointName}”.`,
            });
      try {
        await mailer.send({ to: addresses, ...content }, signal);
        return { ok: true, status: 250, durationMs: elapsed() };
      } catch (error) {
        const failure =
          error instanceof MailError
            ? error
            : new MailError('Failed', (error as Error).message ?? 'unknown error', true);
        return {
          ok: false,
          durationMs: elapsed(),
          error: failure.message,
          ...(failure.responseCode ? { status: failure.responseCode } : {}),
          ...(failure.retryable ? {} : { permanent: true }),
        };
      }
    },
  };
}
