import { createHmac, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';

const ACCESS_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const SECRET_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

export const ACCESS_KEY_LENGTH = 20;
export const SECRET_KEY_LENGTH = 40;
export const ACCESS_KEY_PATTERN = /^[A-Z0-9]{20}$/;
export const SECRET_KEY_PATTERN = /^[A-Za-z0-9]{40}$/;

function randomString(alphabet: string, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[randomInt(alphabet.length)];
  return out;
}

/** Public identifier: 20 characters of A–Z0–9. */
export function newAccessKey(): string {
  return randomString(ACCESS_ALPHABET, ACCESS_KEY_LENGTH);
}

/** 40 random base62 characters, about 238 bits: far beyond guessing, so a fast hash suffices. */
export function newSecretKey(): string {
  return randomString(SECRET_ALPHABET, SECRET_KEY_LENGTH);
}

export function newSalt(): Buffer {
  return randomBytes(16);
}

/**
 * HMAC-SHA256 keyed with the key's own random salt. A memory-hard KDF would add nothing for a
 * secret of this entropy and would cost milliseconds on every API request.
 */
export function hashSecret(salt: Buffer, secret: string): Buffer {
  return createHmac('sha256', salt).update(secret, 'utf8').digest();
}

export function secretMatches(salt: Buffer, secret: string, expected: Buffer): boolean {
  const actual = hashSecret(salt, secret);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
