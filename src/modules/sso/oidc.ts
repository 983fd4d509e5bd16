// The relying party's side of OpenID Connect, through openid-client (OpenID Certified): discovery,
// the authorisation request with state, nonce and PKCE (S256), and the code exchange with every
// check of the answer and its ID token (state, issuer, audience, signature, nonce, times). Nothing
// here parses or verifies a token by hand.
import * as client from 'openid-client';

export interface ProviderClient {
  issuerUrl: string;
  clientId: string;
  clientSecret: string | null;
}

/** Why a sign-in failed at the provider or in the checks of its answer: the reason a user is told. */
export type OidcFailure =
  | 'unreachable'
  | 'provider-misconfigured'
  | 'state'
  | 'provider-refused'
  | 'code-rejected'
  | 'token-invalid';

export class OidcError extends Error {
  constructor(
    readonly reason: OidcFailure,
    message: string,
  ) {
    super(message);
  }
}

const TIMEOUT_SECONDS = 10;

/** Whether a URL's host is the server's own machine: only then may an issuer use http. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname
    .replace(/^\[|\]$/g, '')
    .toLowerCase()
    .replace(/\.$/, '');
  return (
    host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host)
  );
}

async function discover(p: ProviderClient): Promise<client.Configuration> {
  const issuer = new URL(p.issuerUrl);
  // http only reaches a loopback issuer, and such issuers are allowed only by RAMPART_SSO_ALLOW_LOOPBACK
  // (checked when the provider is saved): openid-client refuses http otherwise.
  const insecure = issuer.protocol === 'http:' && isLoopbackHost(issuer.hostname);
  try {
    return await client.discovery(
      issuer,
      p.clientId,
      p.clientSecret ?? undefined,
      p.clientSecret ? client.ClientSecretBasic(p.clientSecret) : client.None(),
      { timeout: TIMEOUT_SECONDS, ...(insecure ? { execute: [client.allowInsecureRequests] } : {}) },
    );
  } catch (error) {
    // Not there, or not answering as a provider does (an error page): down, for whoever signs in.
    // Anything else is a discovery document that does not fit (e.g. another issuer): misconfigured.
    const code = (error as { code?: string }).code;
    const down =
      isNetworkError(error) ||
      code === 'OAUTH_RESPONSE_IS_NOT_CONFORM' ||
      code === 'OAUTH_RESPONSE_IS_NOT_JSON';
    throw new OidcError(
      down ? 'unreachable' : 'provider-misconfigured',
      `Discovery at ${issuer.href} failed: ${describe(error)}`,
    );
  }
}

/** fetch failed (refused, reset, no such host) or timed out. */
function isNetworkError(error: unknown): boolean {
  const name = (error as Error | undefined)?.name;
  return error instanceof TypeError || name === 'AbortError' || name === 'TimeoutError';
}

/** A short account of an error of openid-client, for the server's log and the audit entry. */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const {
    code,
    error: oauthError,
    error_description: description,
  } = error as {
    code?: string;
    error?: unknown;
    error_description?: unknown;
  };
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  // The provider's own error (invalid_grant, access_denied, …) and its description, when it sent one.
  const answer =
    typeof oauthError === 'string'
      ? ` (${oauthError}${typeof description === 'string' ? `: ${description}` : ''})`
      : '';
  return `${code ? `${code} ` : ''}${error.message}${answer}${cause}`.slice(0, 500);
}

export interface AuthorizationRequest {
  url: URL;
  state: string;
  nonce: string;
  codeVerifier: string;
}

/** Where to send the browser, and what the callback will check the answer against. */
export async function authorizationRequest(
  p: ProviderClient,
  redirectUri: string,
  scopes: string[],
): Promise<AuthorizationRequest> {
  const config = await discover(p);
  const codeVerifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const nonce = client.randomNonce();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri,
    scope: scopes.join(' '),
    code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
    state,
    nonce,
  });
  return { url, state, nonce, codeVerifier };
}

/** The claims of the validated ID token, after the code was exchanged. */
export async function completeAuthorization(
  p: ProviderClient,
  callbackUrl: URL,
  expected: { state: string; nonce: string; codeVerifier: string },
): Promise<Record<string, unknown>> {
  const config = await discover(p);
  let tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>;
  try {
    tokens = await client.authorizationCodeGrant(config, callbackUrl, {
      expectedState: expected.state,
      expectedNonce: expected.nonce,
      pkceCodeVerifier: expected.codeVerifier,
      idTokenExpected: true,
    });
  } catch (error) {
    throw classify(error);
  }
  const claims = tokens.claims();
  if (!claims) throw new OidcError('token-invalid', 'The provider returned no ID token.');
  return claims as Record<string, unknown>;
}

function classify(error: unknown): OidcError {
  const message = describe(error);
  if (error instanceof client.AuthorizationResponseError) return new OidcError('provider-refused', message);
  if (error instanceof client.ResponseBodyError) {
    return new OidcError(error.error === 'invalid_grant' ? 'code-rejected' : 'provider-refused', message);
  }
  const code = (error as { code?: string }).code;
  if (code === 'OAUTH_INVALID_RESPONSE' && /"state"/.test(message)) return new OidcError('state', message);
  if (isNetworkError(error)) return new OidcError('unreachable', message);
  return new OidcError('token-invalid', message);
}
