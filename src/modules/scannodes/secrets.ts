import { createHash, randomBytes } from 'node:crypto';

// Node keys and enrolment tokens: 256 random bits each, so a plain SHA-256 of the text is what is
// kept and looked up (no salt or slow hash is needed at this entropy, as for API keys).

export const NODE_KEY_PREFIX = 'rsn_';
export const ENROLMENT_TOKEN_PREFIX = 'rse_';
const BODY = /^[A-Za-z0-9_-]{43}$/;

const secret = (prefix: string) => `${prefix}${randomBytes(32).toString('base64url')}`;

export const newNodeKey = (): string => secret(NODE_KEY_PREFIX);
export const newEnrolmentToken = (): string => secret(ENROLMENT_TOKEN_PREFIX);

/** Whether a text has the shape of a secret with this prefix (checked before any hashing). */
export function looksLike(prefix: string, text: string): boolean {
  return text.startsWith(prefix) && BODY.test(text.slice(prefix.length));
}

export function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}
