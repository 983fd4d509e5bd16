import { createSign, generateKeyPairSync, type JsonWebKey } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider, { type Configuration } from 'oidc-provider';

/**
 * A real, OpenID Certified provider (panva's oidc-provider) on 127.0.0.1, for the tests of single
 * sign-on: its own discovery, authorisation endpoint with its development login and consent pages,
 * token endpoint (PKCE, one-time codes) and signed ID tokens. Only the people (accounts) and what
 * they hold (groups) come from the test.
 */

export interface TestAccount {
  email: string;
  name: string;
  groups: string[];
  emailVerified?: boolean;
}

export interface TestProvider {
  issuer: string;
  /** Starts answering, with Rampart's callback addresses registered for its client. */
  serve(redirectUris: string[]): void;
  /** The accounts by login (= subject); a test changes their groups between sign-ins. */
  accounts: Map<string, TestAccount>;
  /**
   * When set, the token endpoint's answer carries an ID token re-signed with the provider's own
   * key for this other audience (a client other than Rampart): what an ID token meant for another
   * application looks like to Rampart.
   */
  foreignAudience: string | null;
  close(): Promise<void>;
}

export const CLIENT_ID = 'rampart';
export const CLIENT_SECRET = 'client secret of rampart at the test provider';

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/**
 * Listens on a loopback port at once (so that its issuer is known to configure Rampart with);
 * answers once `serve` has registered Rampart's redirect URIs.
 */
export async function openTestProvider(): Promise<TestProvider> {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = {
    ...(privateKey.export({ format: 'jwk' }) as JsonWebKey),
    kid: 'test-key',
    alg: 'RS256',
    use: 'sig',
  };
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const accounts = new Map<string, TestAccount>();
  const configuration = (redirectUris: string[]): Configuration => ({
    clients: [
      {
        client_id: CLIENT_ID,
        client_secret: CLIENT_SECRET,
        redirect_uris: redirectUris,
        response_types: ['code'],
        grant_types: ['authorization_code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    jwks: { keys: [jwk as never] },
    cookies: { keys: ['cookie key of the test provider'] },
    scopes: ['openid', 'email', 'profile', 'groups'],
    claims: {
      openid: ['sub'],
      email: ['email', 'email_verified'],
      profile: ['name'],
      groups: ['groups'],
    },
    // The scopes' claims in the ID token itself (Rampart reads the ID token, not userinfo).
    conformIdTokenClaims: false,
    features: { devInteractions: { enabled: true } },
    findAccount: (_ctx, id) => {
      const account = accounts.get(id);
      if (!account) return undefined;
      return {
        accountId: id,
        claims: () => ({
          sub: id,
          email: account.email,
          email_verified: account.emailVerified ?? true,
          name: account.name,
          groups: account.groups,
        }),
      };
    },
  });
  const state: TestProvider = {
    issuer,
    accounts,
    foreignAudience: null,
    serve: (redirectUris) => server.on('request', serveWith(redirectUris)),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const serveWith = (redirectUris: string[]) => {
    const provider = new Provider(issuer, configuration(redirectUris));
    provider.use(async (ctx, next) => {
      await next();
      const body = ctx.body as { id_token?: string } | undefined;
      if (state.foreignAudience && ctx.path === '/token' && body?.id_token) {
        const payload = JSON.parse(Buffer.from(body.id_token.split('.')[1]!, 'base64url').toString('utf8'));
        const input = `${b64url({ alg: 'RS256', typ: 'JWT', kid: 'test-key' })}.${b64url({ ...payload, aud: state.foreignAudience })}`;
        const signature = createSign('RSA-SHA256').update(input).sign(privateKey).toString('base64url');
        ctx.body = { ...body, id_token: `${input}.${signature}` };
      }
    });
    return provider.callback();
  };
  return state;
}

/**
 * A person at the provider without a browser: follows its redirects with a cookie jar of its own
 * (the provider's session survives between sign-ins, as in a browser) and fills its development
 * login and consent forms. Returns the address the provider sends back to (Rampart's callback).
 */
export class ProviderVisitor {
  private readonly jar = new Map<string, string>();

  constructor(private readonly issuer: string) {}

  private cookieHeader(): string {
    return [...this.jar].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  private keep(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      if (/max-age=0|expires=thu, 01 jan 1970/i.test(line) || value === '') this.jar.delete(name);
      else this.jar.set(name, value);
    }
  }

  async signIn(authorizationUrl: string, login: string): Promise<string> {
    let url = authorizationUrl;
    let form: URLSearchParams | undefined;
    for (let step = 0; step < 20; step++) {
      const res = await fetch(url, {
        method: form ? 'POST' : 'GET',
        redirect: 'manual',
        headers: {
          cookie: this.cookieHeader(),
          ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        },
        ...(form ? { body: form.toString() } : {}),
      });
      this.keep(res);
      form = undefined;
      const location = res.headers.get('location');
      if (location) {
        const next = new URL(location, url).href;
        if (!next.startsWith(this.issuer)) return next;
        url = next;
        continue;
      }
      const html = await res.text();
      const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
      const prompt = /name="prompt" value="(\w+)"/.exec(html)?.[1];
      if (!action || !prompt)
        throw new Error(
          `The provider answered ${res.status} at ${url} with no form: ${html
            .replace(/<style>[\s\S]*<\/style>/, '')
            .replace(/<[^>]+>/g, ' ')
            .replace(/\s+/g, ' ')
            .slice(0, 500)}`,
        );
      url = new URL(action.replace(/&amp;/g, '&'), url).href;
      form = new URLSearchParams(
        prompt === 'login'
          ? { prompt, login, password: 'any password: the test provider accepts it' }
          : { prompt },
      );
    }
    throw new Error('The provider never sent the browser back.');
  }
}
