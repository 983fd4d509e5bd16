import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

// Webhook signatures, as Stripe signs its events: the header
//   Rampart-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>
// binds the body to the time it was sent, so a receiver that rejects old timestamps (5 minutes by
// default) and remembers the event ids it has seen cannot be fed a replayed request. Several v1
// values may appear (while a secret is being rotated); one match suffices. docs/notifications.md
// shows a receiver's check; verifySignature below is the same check, used by the tests.

export const SIGNATURE_HEADER = 'Rampart-Signature';
/** How old a signed timestamp a receiver accepts by default, in seconds. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** A new endpoint's signing secret: `whsec_` and 32 random bytes in base64url. */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

/** The hex HMAC-SHA256 of "<t>.<body>" with the secret. */
export function signatureOf(secret: string, timestamp: number, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${body}`, 'utf8').digest('hex');
}

/** The Rampart-Signature header's value for a body sent at `at`. */
export function signatureHeader(secret: string, at: Date, body: string): string {
  const t = Math.floor(at.getTime() / 1000);
  return `t=${t},v1=${signatureOf(secret, t, body)}`;
}

export type VerifyResult = { ok: true; timestamp: number } | { ok: false; reason: string };

/**
 * A receiver's check of a signed request: the header parses, one v1 signature matches the raw
 * body (compared in constant time), and the timestamp is within `toleranceSeconds` of `now`.
 */
export function verifySignature(
  secret: string,
  header: string | undefined | null,
  body: string,
  now: Date,
  toleranceSeconds = DEFAULT_TOLERANCE_SECONDS,
): VerifyResult {
  if (!header) return { ok: false, reason: `no ${SIGNATURE_HEADER} header` };
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const [key, value] = part.trim().split('=', 2);
    if (key === 't' && value && /^\d{1,12}$/.test(value)) timestamp = Number(value);
    else if (key === 'v1' && value && /^[0-9a-f]{64}$/.test(value)) signatures.push(value);
  }
  if (timestamp === undefined) return { ok: false, reason: 'the header has no timestamp t=' };
  if (signatures.length === 0) return { ok: false, reason: 'the header has no v1= signature' };
  const expected = Buffer.from(signatureOf(secret, timestamp, body), 'hex');
  const matches = signatures.some((s) => timingSafeEqual(Buffer.from(s, 'hex'), expected));
  if (!matches) return { ok: false, reason: 'no signature matches the body' };
  const age = Math.floor(now.getTime() / 1000) - timestamp;
  if (Math.abs(age) > toleranceSeconds)
    return { ok: false, reason: `the timestamp is ${age} s away from now, beyond ${toleranceSeconds} s` };
  return { ok: true, timestamp };
}
