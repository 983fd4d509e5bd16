import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import type { RegisteredRoute } from '../../src/app.js';
import { compose, httpApp } from '../../src/compose.js';
import { type Config, loadConfig } from '../../src/config.js';
import type { Database } from '../../src/db/database.js';
import type { Role } from '../../src/db/schema.js';
import type { Clock } from '../../src/lib/clock.js';
import type { ServiceContext } from '../../src/modules/context.js';
import type { Organization } from '../../src/modules/organizations/service.js';
import type { RunExecutor, ScanKind } from '../../src/scanning/types.js';
import type { Services } from '../../src/services.js';

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

export interface ComposedApp {
  app: FastifyInstance;
  services: Services;
  routes: RegisteredRoute[];
  config: Config;
}

export interface ComposeTestOptions {
  config: Config;
  clock?: Clock;
  /** The app's logger (default none). */
  logger?: false | FastifyServerOptions['loggerInstance'];
  /** The built web app to serve. */
  webDir?: string;
  /**
   * Start the background work as `rampart serve` does: the job runner with every kind of the
   * job catalogue, the system schedules, and the local scan node when the config asks for one.
   * Off by default: a test that needs jobs (imports, scan ingestion) or scans says so.
   */
  background?: boolean;
  /** The local scan node's engines (with RAMPART_LOCAL_SCAN_NODE=true and background), e.g. one for a lab. */
  scanExecutors?: ReadonlyMap<ScanKind, RunExecutor>;
}

/**
 * Rampart composed on a test's database as `rampart serve` composes it (src/compose.ts): the
 * services, the HTTP app (with the throttle's Redis when configured) and, when asked, the
 * background work. Closing the app closes the rest, the background work first (never the test's
 * database, which the test drops).
 */
export async function composeTestApp(database: Database, options: ComposeTestOptions): Promise<ComposedApp> {
  const { config } = options;
  const composition = await compose(config, {
    database,
    clock: options.clock,
    authCacheSeconds: config.authCacheSeconds,
  });
  const { app, routes } = await httpApp(composition, {
    logger: options.logger ?? false,
    ...(options.webDir ? { webDir: options.webDir } : {}),
    onClose: () => composition.close(),
  });
  if (options.background)
    await composition.startBackground({
      log: app.log,
      ...(options.scanExecutors ? { scanExecutors: options.scanExecutors } : {}),
    });
  return { app, routes, services: composition.services, config };
}

let counter = 0;

export async function buildTestApp(
  database: Database,
  options: {
    env?: Record<string, string>;
    clock?: TestClock;
    /** Start the background work (jobs, schedules, local scan node): see ComposeTestOptions. */
    background?: boolean;
    /** The local scan node's engines (with RAMPART_LOCAL_SCAN_NODE=true), e.g. one for a lab. */
    scanExecutors?: ReadonlyMap<ScanKind, RunExecutor>;
  } = {},
): Promise<TestApp> {
  const config = testConfig(options.env);
  const clock = options.clock ?? new TestClock();
  const { app, services, routes } = await composeTestApp(database, {
    config,
    clock: clock.fn,
    background: options.background,
    scanExecutors: options.scanExecutors,
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
