/** The installation's organisations, for installation Admins. */
export const INSTALLATION_ORGANIZATIONS = '/installation/organizations';

/** The sign-in page, asked to come back to `returnTo` (a path with its search and hash). */
export function signInPath(returnTo: string): string {
  return `/sign-in?next=${encodeURIComponent(returnTo)}`;
}

/**
 * Where to go after signing in. Only a path on this site: "//host" and "/\host" are
 * protocol-relative URLs in browsers and would send the user elsewhere (open redirect).
 */
export function safeNext(next: string | null): string {
  if (!next) return '/';
  if (!next.startsWith('/') || next.startsWith('//') || next.startsWith('/\\')) return '/';
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it rejects
  if (/[\u0000-\u001f\u007f]/.test(next)) return '/';
  if (next === '/sign-in' || next.startsWith('/sign-in?') || next.startsWith('/sign-in#')) return '/';
  return next;
}
