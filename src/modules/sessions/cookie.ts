import type { FastifyReply, FastifyRequest } from 'fastify';
import { SESSION_COOKIE } from '../../http/auth.js';
import type { SignedIn } from './service.js';

/** Whether the session cookie is marked Secure: served over https, or behind an https base address. */
export const secureCookie = (baseUrl: string, request: FastifyRequest) =>
  baseUrl.startsWith('https:') || request.protocol === 'https';

/** Sets the cookie of a session that just started (HttpOnly, SameSite=Lax, Secure over https). */
export function setSessionCookie(
  request: FastifyRequest,
  reply: FastifyReply,
  baseUrl: string,
  signedIn: SignedIn,
): void {
  reply.setCookie(SESSION_COOKIE, signedIn.token, {
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    secure: secureCookie(baseUrl, request),
    // Max-Age, not Expires: the browser's clock need not agree with the application's.
    maxAge: signedIn.maxAgeSeconds,
  });
}
