import { createHash, randomInt } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import { renderSVG } from 'uqr';

// TOTP as RFC 6238 has it and every authenticator app reads it: HMAC-SHA-1, 6 digits, 30-second
// steps, a code of the step before or after accepted too (clocks drift); otpauth computes it.

export const TOTP_DIGITS = 6;
export const TOTP_PERIOD_SECONDS = 30;
/** Steps either side of now whose codes are accepted. */
export const TOTP_WINDOW = 1;
/** The issuer the authenticator app shows beside the account. */
export const TOTP_ISSUER = 'Rampart';

const totp = (secret: string, label = '') =>
  new TOTP({
    issuer: TOTP_ISSUER,
    label,
    algorithm: 'SHA1',
    digits: TOTP_DIGITS,
    period: TOTP_PERIOD_SECONDS,
    secret: Secret.fromBase32(secret),
  });

/** A new secret: 160 random bits (RFC 4226's recommended length), in base32. */
export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

/** The 30-second step a time falls in. */
export function stepAt(at: Date): number {
  return Math.floor(at.getTime() / 1000 / TOTP_PERIOD_SECONDS);
}

/** The code of a secret at a time (the tests' authenticator app). */
export function totpCode(secret: string, at: Date): string {
  return totp(secret).generate({ timestamp: at.getTime() });
}

/** A code as people type it: spaces and dashes left out. */
export function normalizeTotpCode(code: string): string {
  return code.replace(/[\s-]/g, '');
}

export const TOTP_CODE = /^\d{6}$/;

/**
 * The step whose code this is (now, or one step either side), or null when it is none of them.
 * Whether that step was used already is the caller's to check.
 */
export function matchTotp(secret: string, code: string, at: Date): number | null {
  const token = normalizeTotpCode(code);
  if (!TOTP_CODE.test(token)) return null;
  const delta = totp(secret).validate({ token, timestamp: at.getTime(), window: TOTP_WINDOW });
  return delta === null ? null : stepAt(at) + delta;
}

/** The otpauth:// URI authenticator apps read from the QR code (Google's Key Uri Format). */
export function otpauthUri(secret: string, account: string): string {
  return totp(secret, account).toString();
}

/** The QR code of a URI as an SVG data URL: drawn here, so that no third party sees the secret. */
export function qrCodeDataUrl(text: string): string {
  const svg = renderSVG(text, { border: 2, ecc: 'M' });
  return `data:image/svg+xml;base64,${Buffer.from(svg, 'utf8').toString('base64')}`;
}

// Recovery codes: 16 characters of a 31-letter alphabet without look-alikes (79 random bits), in
// groups of four. So much randomness needs no slow hash: a code is stored, and found, by its SHA-256.

const RECOVERY_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';
export const RECOVERY_CODE_COUNT = 10;

/** A new recovery code, as shown: `abcd-efgh-jkmn-pqrs`. */
export function newRecoveryCode(): string {
  let out = '';
  for (let i = 0; i < 16; i++) {
    if (i > 0 && i % 4 === 0) out += '-';
    out += RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)];
  }
  return out;
}

/** A recovery code as typed (any case, with or without dashes and spaces), ready to hash. */
export function normalizeRecoveryCode(code: string): string {
  return code.toLowerCase().replace(/[\s-]/g, '');
}

export const RECOVERY_CODE = /^[a-z2-9]{16}$/;

export function recoveryCodeHash(code: string): Buffer {
  return createHash('sha256').update(normalizeRecoveryCode(code), 'utf8').digest();
}
