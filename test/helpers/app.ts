import type { FastifyInstance } from 'fastify';
import { buildApp, type RegisteredRoute } from '../../src/app.js';
import { openInvalidationBus } from '../../src/background.js';
import { type Config, loadConfig } from '../../src/config.js';
import type { Database } from '../../src/db/database.js';
import type { Role } from '../../src/db/schema.js';
import type { ServiceContext } from '../../src/modules/context.js';
import type { Organization } from '../../src/modules/organizations/service.js';
import type { RunExecutor, ScanKind } from '../../src/scanning/types.js';
import { buildServices, type Services } from '../../src/services.js';

export class TestClock {
  constructor(public now = new Date('2026-11-21T12:00:00Z')) {}
  readonly fn = () => new Date(this.now);
  advanceDays(days: number): void {
    this.now = new Date(this.now.getTime() + days * 86_400_000);
  }
}

export interface Credentials {
  accessKey: string;
  secretKey: string;
  userId: string;
  apiKeyId: string;
}

export interface TestApp {
  app: FastifyInstance;
  services: Services;
  routes: RegisteredRoute[];
  config: Config;
  org: Organization;
  clock: TestClock;
  admin: Credentials;
  /** A user of `role` in `org` (or the first organisation) with a fresh key. */
  userWithKey(role: Role, org?: Organization): Promise<Credentials>;
  close(): Promise<void>;
}

export function testConfig(env: Record<string, string> = {}): Config {
  // No scan node in test apps unless a test asks for one: a node scans whatever its runs name,
  // and only the lab tests build a network for that. No sync from the official sources either:
  // a test never reaches the internet (the sync's own tests point it at a local server).
  return loadConfig({
    RAMPART_THROTTLE_LIMIT: '100000',
    RAMPART_LOCAL_SCAN_NODE: 'false',
    RAMPART_INTEL_SYNC: 'off',
    ...env,
  });
}

let counter = 0;

export async function buildTestApp(
  database: Database,
  options: {
    env?: Record<string, string>;
    clock?: TestClock;
    /** The local scan node's engines (with RAMPART_LOCAL_SCAN_NODE=true), e.g. one for a lab. */
    scanExecutors?: ReadonlyMap<ScanKind, RunExecutor>;
  } = {},
): Promise<TestApp> {
  const config = testConfig(options.env);
  const clock = options.clock ?? new TestClock();
  // Like `rampart serve`: the service graph first, then the HTTP app on it.
  const bus = openInvalidationBus(config);
  const graph = { services: buildServices(database, clock.fn, bus, config), bus };
  const { app, services, routes } = await buildApp({
    config,
    database,
    graph,
    logger: false,
    ...(options.scanExecutors ? { scanExecutors: options.scanExecutors } : {}),
  });
  const { organization: org } = await services.organizations.ensureFirst();

  const userWithKey = async (role: Role, inOrg: Organization = org): Promise<Credentials> => {
    const ctx: ServiceContext = { organizationId: inOrg.id, actor: { type: 'system', id: null } };
    counter += 1;
    const user = await services.users.create(ctx, {
      email: `${role.toLowerCase()}-${process.pid}-${counter}-${Date.now()}@example.com`,
      role,
    });
    const { key, secretKey } = await services.apiKeys.create(ctx, { userId: user.id, name: `${role} key` });
    return { accessKey: key.accessKey, secretKey, userId: user.id, apiKeyId: key.id };
  };

  const admin = await userWithKey('Admin');
  return { app, services, routes, config, org, clock, admin, userWithKey, close: () => app.close() };
}

export function authHeaders(c: Pick<Credentials, 'accessKey' | 'secretKey'>): Record<string, string> {
  return { ApiAccessKey: c.accessKey, ApiSecretKey: c.secretKey };
}

export interface Browser {
  cookie: string;
  csrf: string;
  headers: Record<string, string>;
}

/** Signs in through the API like the web app does; returns what its requests then carry. */
export async function signInAs(
  app: FastifyInstance,
  email: string,
  password: string,
  ip = '127.0.9.1',
): Promise<Browser> {
  const res = await app.inject({
    method: 'POST',
    url: '/api/latest/session',
    remoteAddress: ip,
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify({ Email: email, Password: password }),
  });
  if (res.statusCode !== 200) throw new Error(`sign-in failed: ${res.statusCode} ${res.body}`);
  const cookie = String(res.headers['set-cookie']).split(';')[0]!;
  const csrf = res.json().CsrfToken as string;
  return { cookie, csrf, headers: { cookie, 'x-csrf-token': csrf } };
}
