import { performance } from 'node:perf_hooks';
import {
  checkDestination,
  type DestinationPolicy,
  type DestinationResolver,
  isDestinationRefusal,
} from '../../lib/destination.js';
import { type PostAnswer, PostTimeout, postTo } from '../../lib/outbound-http.js';
import { VERSION } from '../../version.js';
import { slackMessage, teamsMessage } from './formats.js';
import { SIGNATURE_HEADER, signatureHeader } from './signature.js';
import type { ChannelTarget, DeliveryOutcome, NotificationChannel, NotificationEvent } from './types.js';

// The built-in channels: webhooks (the CloudEvent, signed), Slack and Teams incoming webhooks
// (a sentence and a link). All three POST over HTTP to a destination the guard checks again at
// every attempt (the name may resolve elsewhere since the endpoint was saved) and connect to the
// address it checked. A redirect is never followed: it fails the attempt and says where it led.

export interface HttpChannelOptions {
  policy: DestinationPolicy;
  resolve?: DestinationResolver;
  /** The web app's address, for the links of Slack and Teams messages. */
  baseUrl: string;
  /** The longest wait for an answer, in ms. */
  timeoutMs: number;
  /** The time a webhook is signed at: the application's clock. */
  clock: () => Date;
}

const USER_AGENT = `Rampart-Notifications/${VERSION}`;

/** How long a receiver asks to wait (Retry-After: seconds or an HTTP date), in ms; undefined when it does not say. */
export function retryAfterMs(value: string | undefined, now: Date): number | undefined {
  if (!value) return undefined;
  const text = value.trim();
  if (/^\d{1,9}$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now.getTime());
}

/** An answer as an outcome: 2xx succeeds; anything else fails, a redirect saying where it led. */
function outcomeOf(answer: PostAnswer, durationMs: number, now: Date): DeliveryOutcome {
  const status = answer.status;
  if (status >= 200 && status < 300) return { ok: true, status, durationMs };
  if (status >= 300 && status < 400) {
    const location = answer.headers.location;
    return {
      ok: false,
      status,
      durationMs,
      error: `The receiver answered ${status} with a redirect${location ? ` to ${location.slice(0, 300)}` : ''}; redirects are not followed.`,
    };
  }
  const wait =
    status === 429 || status === 503 ? retryAfterMs(answer.headers['retry-after'], now) : undefined;
  const excerpt = answer.body.replace(/\s+/g, ' ').trim().slice(0, 200);
  return {
    ok: false,
    status,
    durationMs,
    error: `The receiver answered ${status}${excerpt ? `: ${excerpt}` : '.'}`,
    ...(wait !== undefined ? { retryAfterMs: wait } : {}),
  };
}

/** POSTs a body to a target's URL after the guard's check; never throws for the receiver's failures. */
async function post(
  options: HttpChannelOptions,
  target: ChannelTarget,
  body: string,
  headers: Record<string, string>,
  signal: AbortSignal,
): Promise<DeliveryOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const destination = await checkDestination(target.url, options.policy, options.resolve);
  if (isDestinationRefusal(destination))
    return {
      ok: false,
      durationMs: elapsed(),
      error: `Refused destination (${destination.rule}): ${destination.message}`,
      permanent: true,
    };
  try {
    const answer = await postTo(destination, body, headers, {
      timeoutMs: options.timeoutMs,
      signal,
      userAgent: USER_AGENT,
    });
    return outcomeOf(answer, elapsed(), options.clock());
  } catch (error) {
    const timedOut = error instanceof PostTimeout || signal.reason?.name === 'TimeoutError';
    return {
      ok: false,
      durationMs: elapsed(),
      error: timedOut
        ? `The receiver did not answer within ${options.timeoutMs} ms.`
        : `The request failed: ${(error as Error).message}`.slice(0, 500),
    };
  }
}

/** The webhook's headers and body for one event: the CloudEvent, signed with the endpoint's secret. */
export function webhookRequest(
  target: ChannelTarget,
  event: NotificationEvent,
  at: Date,
): { body: string; headers: Record<string, string> } {
  const body = JSON.stringify(event);
  const headers: Record<string, string> = {
    'Content-Type': 'application/cloudevents+json; charset=utf-8',
    'Rampart-Event-Id': event.id,
    'Rampart-Event-Type': event.type,
    'Rampart-Delivery-Id': target.deliveryId,
    'Rampart-Delivery-Attempt': String(target.attempt),
  };
  if (target.secret) headers[SIGNATURE_HEADER] = signatureHeader(target.secret, at, body);
  return { body, headers };
}

const one = (events: NotificationEvent[]): NotificationEvent => {
  if (events.length !== 1)
    throw new Error(`An HTTP channel sends one event at a time, not ${events.length}.`);
  return events[0]!;
};

export function webhookChannel(options: HttpChannelOptions): NotificationChannel {
  return {
    kind: 'Webhook',
    signs: true,
    deliver: (target, events, signal) => {
      const { body, headers } = webhookRequest(target, one(events), options.clock());
      return post(options, target, body, headers, signal);
    },
    checkDestination: async (url) => {
      const result = await checkDestination(url, options.policy, options.resolve);
      return isDestinationRefusal(result) ? result : null;
    },
  };
}

function chatChannel(
  kind: 'Slack' | 'Teams',
  options: HttpChannelOptions,
  format: (events: NotificationEvent[], baseUrl: string) => object,
): NotificationChannel {
  return {
    kind,
    deliver: (target, events, signal) =>
      post(
        options,
        target,
        JSON.stringify(format(events, options.baseUrl)),
        { 'Content-Type': 'application/json; charset=utf-8', 'Rampart-Delivery-Id': target.deliveryId },
        signal,
      ),
    checkDestination: async (url) => {
      const result = await checkDestination(url, options.policy, options.resolve);
      return isDestinationRefusal(result) ? result : null;
    },
  };
}

/** Webhook, Slack and Teams. */
export function httpChannels(options: HttpChannelOptions): NotificationChannel[] {
  return [
    webhookChannel(options),
    chatChannel('Slack', options, slackMessage),
    chatChannel('Teams', options, teamsMessage),
  ];
}
