import path from 'node:path';
import { type Static, Type } from 'typebox';
import { Value } from 'typebox/value';
import {
  DEFAULT_EPSS_URL,
  DEFAULT_KEV_URL,
  DEFAULT_NVD_URL,
  DEFAULT_OSV_ECOSYSTEMS,
  DEFAULT_OSV_URL,
  type OfficialSources,
} from './intel/sync/sources.js';
import { smtpUrlProblem } from './mail/url.js';

/**
 * Every environment variable Rampart reads, in one table. The table in docs/configuration.md is
 * checked against this list by a test, so a variable cannot be added without documenting it.
 */
export const ENV_VARS = {
  RAMPART_PORT: 'TCP port the HTTP server listens on (default 8080).',
  RAMPART_HOST: 'Address the HTTP server binds to (default 127.0.0.1; use 0.0.0.0 in containers).',
  RAMPART_BASE_URL:
    'Public base URL, used in the API documentation and printed links (default http://localhost:<port>). May contain a path prefix when behind a proxy.',
  RAMPART_DATA_DIR: 'Folder of the embedded database when DATABASE_URL is not set (default ./data).',
  DATABASE_URL:
    'postgres://… URL of a PostgreSQL server; switches from the embedded database to that server.',
  RAMPART_DB_POOL_SIZE:
    'Connections in the database pool per instance (default 10), on the embedded server as on PostgreSQL.',
  REDIS_URL:
    'redis://… URL; enables shared throttle counters and API key cache invalidation across instances.',
  RAMPART_REDIS_PREFIX:
    'Starts the name of every Redis key and channel Rampart uses (default rampart:); give installations that share one Redis different prefixes. Letters, digits and : _ . - only, at most 64.',
  RAMPART_LOG_LEVEL: 'fatal, error, warn, info, debug or trace (default info).',
  RAMPART_METRICS_TOKEN:
    'Serves GET /metrics (Prometheus text format) on the main port to requests with Authorization: Bearer <this token>, at least 32 characters without spaces (default: not set, and /metrics is a 404 there).',
  RAMPART_METRICS_PORT:
    'Serves GET /metrics on this port of its own, bound to RAMPART_METRICS_HOST; the token is asked there too when set (default: not set, no metrics port).',
  RAMPART_METRICS_HOST:
    'Address the metrics port binds to (default 127.0.0.1); only with RAMPART_METRICS_PORT.',
  RAMPART_THROTTLE_LIMIT:
    'Requests per window per client (API key, or source address when anonymous) (default 600).',
  RAMPART_THROTTLE_WINDOW: 'Throttle window in seconds (default 60).',
  RAMPART_THROTTLE_ROUTES: 'Per-route overrides as JSON: {"<operationId>": {"Limit": n, "Window": seconds}}.',
  RAMPART_LOGIN_THROTTLE_LIMIT:
    'Sign-in attempts per window for one account from one source address (default 10).',
  RAMPART_LOGIN_THROTTLE_ACCOUNT_LIMIT:
    'Sign-in attempts per window for one account from all addresses together (default 30).',
  RAMPART_LOGIN_THROTTLE_ADDRESS_LIMIT:
    'Sign-in attempts per window from one source address, whatever the accounts (default 100).',
  RAMPART_LOGIN_THROTTLE_WINDOW: 'Sign-in throttle window in seconds (default 300).',
  RAMPART_SESSION_IDLE_MINUTES: 'A web session ends after this many minutes without a request (default 30).',
  RAMPART_SESSION_MAX_HOURS: 'A web session ends this many hours after sign-in, active or not (default 12).',
  RAMPART_AUTH_CACHE_SECONDS:
    'How long a verified API key stays cached; bounds how late a revoke reaches other instances without Redis (default 30).',
  RAMPART_LAST_USED_FLUSH_SECONDS:
    'How often API key last-used times are written to the database (default 60).',
  RAMPART_DEPRECATIONS:
    'Extra deprecations as JSON, or @path to a JSON file: [{"Method","Path","Channel","MarkedOn","RemovalOn"?,"Replacement"}].',
  RAMPART_BODY_LIMIT: 'Largest accepted request body in bytes (default 1048576).',
  RAMPART_IMPORT_MAX_BYTES:
    'Largest scanner report accepted by an import, in bytes, before and after gzip decompression (default 1073741824 = 1 GiB).',
  RAMPART_IMPORT_DIR:
    'Folder where uploaded reports wait while they are imported; each is deleted when its import ends (default: the system temporary folder).',
  RAMPART_INTEL_KB:
    'Folder of the offline knowledge base loaded on first start, when no intelligence has ever been loaded (default: the bundled knowledge-base/; "off" to start empty).',
  RAMPART_INTEL_SYNC:
    'on (the default) syncs vulnerability intelligence from the official sources (NVD API 2.0, CISA KEV, EPSS, OSV per ecosystem) or their mirrors below; off for air-gapped sites: nothing is fetched from them.',
  RAMPART_INTEL_NVD_URL:
    'The NVD CVE API 2.0 address, or a mirror answering the same (default https://services.nvd.nist.gov/rest/json/cves/2.0).',
  RAMPART_INTEL_NVD_API_KEY:
    'An NVD API key, sent as the apiKey header: 50 requests in 30 s instead of 5 (default: none).',
  RAMPART_INTEL_NVD_PAGE_SIZE:
    'Records per NVD page, resultsPerPage (default and most 2000, as NVD allows; a smaller page suits a slow mirror).',
  RAMPART_INTEL_KEV_URL:
    "The CISA KEV catalogue's JSON address, or a mirror (default https://www.cisa.gov/sites/default/files/feeds/known_exploited_vulnerabilities.json).",
  RAMPART_INTEL_EPSS_URL:
    "EPSS's daily CSV (gzip or not), or a mirror (default https://epss.empiricalsecurity.com/epss_scores-current.csv.gz).",
  RAMPART_INTEL_OSV_URL:
    'The OSV bucket, or a mirror laid out the same: <url>/<Ecosystem>/all.zip (default https://osv-vulnerabilities.storage.googleapis.com).',
  RAMPART_INTEL_OSV_ECOSYSTEMS:
    'The OSV ecosystems to sync, separated by commas (default: those Rampart matches: Debian, Ubuntu, Alpine, npm, PyPI, Maven, Go, crates.io, NuGet, RubyGems, Packagist).',
  RAMPART_INTEL_SYNC_URLS:
    'More feed files to download and load on the same schedule, separated by spaces (NVD API 2.0 pages, CVE 5 records, the KEV catalogue, EPSS CSV, OSV advisories; each detected by content; gzip accepted). Fetched even with RAMPART_INTEL_SYNC=off.',
  RAMPART_INTEL_SYNC_HOURS: 'Hours between two syncs (default 24); the first runs at start.',
  RAMPART_INTEL_MAX_BYTES:
    'Largest feed file accepted by a load, upload or sync, in bytes, before and after gzip decompression (default 2147483648 = 2 GiB).',
  RAMPART_PARSE_MAX_DEPTH:
    'Deepest nesting of JSON arrays and objects or XML elements in an uploaded report or feed file (default 64).',
  RAMPART_PARSE_MAX_ATTRIBUTES:
    'Most attributes of one XML element, or cells of one CSV row, in an uploaded report or feed file (default 1000).',
  RAMPART_PARSE_MAX_TEXT_BYTES:
    'Longest single text in an uploaded report or feed file, in bytes: a JSON string or key, an XML text node, start tag (attributes included), comment or CDATA section, a CSV row, a line of text (default 16777216 = 16 MiB).',
  RAMPART_PARSE_MAX_ELEMENTS:
    'Most JSON values, XML elements, or CSV rows and lines in one uploaded report or feed file (default 50000000).',
  RAMPART_LOCAL_SCAN_NODE:
    'true (the default) runs a scan node inside the server, so that scans run with no extra process; false leaves scanning to nodes started with `rampart scan-node`.',
  RAMPART_SCAN_ALLOW_LOOPBACK:
    'true lets Admins allow loopback targets (127.0.0.0/8, ::1) for scans, for labs and tests on one machine (default false: loopback is always refused).',
  RAMPART_NOTIFY_ALLOW_LOOPBACK:
    'true lets notification endpoints (webhooks, Slack, Teams) reach loopback addresses (127.0.0.0/8, ::1, localhost), for receivers on the same machine and tests (default false).',
  RAMPART_NOTIFY_ALLOW_PRIVATE:
    'true lets notification endpoints reach private networks (10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7), for receivers inside your network (default false). Link-local and cloud metadata addresses stay refused.',
  RAMPART_SSO_ALLOW_LOOPBACK:
    'true lets single sign-on providers have a loopback issuer (127.0.0.0/8, ::1, localhost), over http as well as https, for a provider on the same machine and tests (default false: issuers are https URLs of other hosts).',
  RAMPART_TRUST_PROXY: 'true when behind a reverse proxy that sets X-Forwarded-For (default false).',
  RAMPART_SHUTDOWN_TIMEOUT:
    'Seconds to drain requests and finish jobs on SIGTERM/SIGINT before forcing exit (default 10); jobs still running after half of it are stopped and queued again.',
  RAMPART_ADMIN_EMAIL: 'Email of the Admin that `serve` makes sure exists (default admin@rampart.local).',
  RAMPART_ADMIN_PASSWORD:
    'Password of that Admin when first created (default: generated and printed once); ignored, with a warning, once it exists: use `rampart user reset-password`.',
  RAMPART_SMTP_URL:
    'The SMTP server Rampart sends email through: smtp://host:587 (STARTTLS) or smtps://host:465 (TLS from the start); user:password@ may be in it (percent-encoded), or use the two variables below. With a password, smtp:// requires STARTTLS unless ?starttls=offered is added. Not set: email is not configured and email deliveries wait.',
  RAMPART_SMTP_USER: 'The SMTP user name, when not in RAMPART_SMTP_URL.',
  RAMPART_SMTP_PASSWORD: 'The SMTP password, when not in RAMPART_SMTP_URL (never logged).',
  RAMPART_MAIL_FROM:
    'The sender of Rampart’s email, e.g. "Rampart <rampart@example.com>"; required with RAMPART_SMTP_URL.',
  RAMPART_SMTP_TLS_CA:
    'Path to a PEM file of the certificate authorities trusted for the SMTP server, for a private CA (default: the system’s).',
  RAMPART_SMTP_TLS_REJECT_UNAUTHORIZED:
    'false accepts any certificate from the SMTP server, for labs only (default true).',
} as const;

export type EnvVarName = keyof typeof ENV_VARS;

const PositiveInt = (def: number, max = 2 ** 31 - 1) =>
  Type.Integer({ minimum: 1, maximum: max, default: def });

const RouteThrottle = Type.Object(
  { Limit: Type.Integer({ minimum: 1 }), Window: Type.Integer({ minimum: 1 }) },
  { additionalProperties: false },
);

export const DeprecationConfig = Type.Object(
  {
    Method: Type.Union([
      Type.Literal('GET'),
      Type.Literal('POST'),
      Type.Literal('PUT'),
      Type.Literal('PATCH'),
      Type.Literal('DELETE'),
    ]),
    Path: Type.String({ minLength: 1 }),
    Channel: Type.Union([Type.Literal('latest'), Type.Literal('integration')]),
    MarkedOn: Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$' }),
    RemovalOn: Type.Optional(Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$' })),
    Replacement: Type.String({ minLength: 1 }),
  },
  { additionalProperties: false },
);
export type DeprecationConfig = Static<typeof DeprecationConfig>;

export const ConfigSchema = Type.Object({
  port: Type.Integer({ minimum: 0, maximum: 65535, default: 8080 }),
  host: Type.String({ minLength: 1, default: '127.0.0.1' }),
  baseUrl: Type.Optional(Type.String({ pattern: '^https?://[^\\s]+$' })),
  dataDir: Type.String({ minLength: 1, default: './data' }),
  databaseUrl: Type.Optional(Type.String({ pattern: '^postgres(ql)?://' })),
  dbPoolSize: PositiveInt(10, 1000),
  redisUrl: Type.Optional(Type.String({ pattern: '^rediss?://' })),
  redisPrefix: Type.String({ pattern: '^[A-Za-z0-9:_.-]{1,64}$', default: 'rampart:' }),
  metricsToken: Type.Optional(Type.String({ minLength: 32, maxLength: 1024, pattern: '^\\S+$' })),
  metricsPort: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535 })),
  metricsHost: Type.String({ minLength: 1, default: '127.0.0.1' }),
  logLevel: Type.Union(
    [
      Type.Literal('fatal'),
      Type.Literal('error'),
      Type.Literal('warn'),
      Type.Literal('info'),
      Type.Literal('debug'),
      Type.Literal('trace'),
      Type.Literal('silent'),
    ],
    { default: 'info' },
  ),
  throttleLimit: PositiveInt(600),
  throttleWindowSeconds: PositiveInt(60, 86400),
  throttleRoutes: Type.Record(Type.String(), RouteThrottle, { default: {} }),
  loginThrottleLimit: PositiveInt(10),
  loginThrottleAccountLimit: PositiveInt(30),
  loginThrottleAddressLimit: PositiveInt(100),
  loginThrottleWindowSeconds: PositiveInt(300, 86400),
  sessionIdleMinutes: PositiveInt(30, 7 * 24 * 60),
  sessionMaxHours: PositiveInt(12, 24 * 90),
  authCacheSeconds: Type.Integer({ minimum: 0, maximum: 3600, default: 30 }),
  lastUsedFlushSeconds: PositiveInt(60, 86400),
  deprecations: Type.Array(DeprecationConfig, { default: [] }),
  bodyLimit: PositiveInt(1024 * 1024),
  importMaxBytes: Type.Integer({ minimum: 1024, maximum: 64 * 1024 ** 3, default: 1024 ** 3 }),
  importDir: Type.Optional(Type.String({ minLength: 1 })),
  intelKb: Type.Optional(Type.String({ minLength: 1 })),
  intelSync: Type.Union([Type.Literal('on'), Type.Literal('off')], { default: 'on' }),
  intelNvdUrl: Type.String({ pattern: '^https?://\\S+$', default: DEFAULT_NVD_URL }),
  intelNvdApiKey: Type.Optional(Type.String({ minLength: 1, maxLength: 200, pattern: '^\\S+$' })),
  intelNvdPageSize: PositiveInt(2000, 2000),
  intelKevUrl: Type.String({ pattern: '^https?://\\S+$', default: DEFAULT_KEV_URL }),
  intelEpssUrl: Type.String({ pattern: '^https?://\\S+$', default: DEFAULT_EPSS_URL }),
  intelOsvUrl: Type.String({ pattern: '^https?://\\S+$', default: DEFAULT_OSV_URL }),
  intelOsvEcosystems: Type.String({
    pattern: '^\\s*[A-Za-z][\\w.:-]*(?:\\s*,\\s*[A-Za-z][\\w.:-]*)*\\s*$',
    default: DEFAULT_OSV_ECOSYSTEMS.join(','),
  }),
  intelSyncUrls: Type.Optional(Type.String({ pattern: '^\\s*https?://\\S+(?:\\s+https?://\\S+)*\\s*$' })),
  intelSyncHours: PositiveInt(24, 24 * 365),
  intelMaxBytes: Type.Integer({ minimum: 1024, maximum: 64 * 1024 ** 3, default: 2 * 1024 ** 3 }),
  parseMaxDepth: PositiveInt(64, 10_000),
  parseMaxAttributes: PositiveInt(1000, 10_000_000),
  // V8 strings end near 512 M characters; a parser keeps one text whole.
  parseMaxTextBytes: PositiveInt(16 * 1024 * 1024, 256 * 1024 * 1024),
  parseMaxElements: PositiveInt(50_000_000),
  scanAllowLoopback: Type.Boolean({ default: false }),
  notifyAllowLoopback: Type.Boolean({ default: false }),
  notifyAllowPrivate: Type.Boolean({ default: false }),
  ssoAllowLoopback: Type.Boolean({ default: false }),
  trustProxy: Type.Boolean({ default: false }),
  localScanNode: Type.Boolean({ default: true }),
  shutdownTimeoutSeconds: PositiveInt(10, 600),
  adminEmail: Type.String({ format: 'email', default: 'admin@rampart.local' }),
  adminPassword: Type.Optional(Type.String({ minLength: 1 })),
  smtpUrl: Type.Optional(Type.String({ pattern: '^smtps?://\\S+$' })),
  smtpUser: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
  smtpPassword: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
  mailFrom: Type.Optional(Type.String({ minLength: 3, maxLength: 320 })),
  smtpTlsCa: Type.Optional(Type.String({ minLength: 1 })),
  smtpTlsRejectUnauthorized: Type.Boolean({ default: true }),
});

export type Config = Static<typeof ConfigSchema> & { baseUrl: string };

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Which environment variable feeds which config field, and how its text is read. */
const SOURCES: Record<
  string,
  { field: keyof Static<typeof ConfigSchema>; kind: 'int' | 'bool' | 'json' | 'string' }
> = {
  RAMPART_PORT: { field: 'port', kind: 'int' },
  RAMPART_HOST: { field: 'host', kind: 'string' },
  RAMPART_BASE_URL: { field: 'baseUrl', kind: 'string' },
  RAMPART_DATA_DIR: { field: 'dataDir', kind: 'string' },
  RAMPART_IMPORT_MAX_BYTES: { field: 'importMaxBytes', kind: 'int' },
  RAMPART_IMPORT_DIR: { field: 'importDir', kind: 'string' },
  DATABASE_URL: { field: 'databaseUrl', kind: 'string' },
  RAMPART_DB_POOL_SIZE: { field: 'dbPoolSize', kind: 'int' },
  REDIS_URL: { field: 'redisUrl', kind: 'string' },
  RAMPART_REDIS_PREFIX: { field: 'redisPrefix', kind: 'string' },
  RAMPART_LOG_LEVEL: { field: 'logLevel', kind: 'string' },
  RAMPART_METRICS_TOKEN: { field: 'metricsToken', kind: 'string' },
  RAMPART_METRICS_PORT: { field: 'metricsPort', kind: 'int' },
  RAMPART_METRICS_HOST: { field: 'metricsHost', kind: 'string' },
  RAMPART_THROTTLE_LIMIT: { field: 'throttleLimit', kind: 'int' },
  RAMPART_THROTTLE_WINDOW: { field: 'throttleWindowSeconds', kind: 'int' },
  RAMPART_THROTTLE_ROUTES: { field: 'throttleRoutes', kind: 'json' },
  RAMPART_LOGIN_THROTTLE_LIMIT: { field: 'loginThrottleLimit', kind: 'int' },
  RAMPART_LOGIN_THROTTLE_ACCOUNT_LIMIT: { field: 'loginThrottleAccountLimit', kind: 'int' },
  RAMPART_LOGIN_THROTTLE_ADDRESS_LIMIT: { field: 'loginThrottleAddressLimit', kind: 'int' },
  RAMPART_LOGIN_THROTTLE_WINDOW: { field: 'loginThrottleWindowSeconds', kind: 'int' },
  RAMPART_SESSION_IDLE_MINUTES: { field: 'sessionIdleMinutes', kind: 'int' },
  RAMPART_SESSION_MAX_HOURS: { field: 'sessionMaxHours', kind: 'int' },
  RAMPART_AUTH_CACHE_SECONDS: { field: 'authCacheSeconds', kind: 'int' },
  RAMPART_LAST_USED_FLUSH_SECONDS: { field: 'lastUsedFlushSeconds', kind: 'int' },
  RAMPART_DEPRECATIONS: { field: 'deprecations', kind: 'json' },
  RAMPART_BODY_LIMIT: { field: 'bodyLimit', kind: 'int' },
  RAMPART_INTEL_KB: { field: 'intelKb', kind: 'string' },
  RAMPART_INTEL_SYNC: { field: 'intelSync', kind: 'string' },
  RAMPART_INTEL_NVD_URL: { field: 'intelNvdUrl', kind: 'string' },
  RAMPART_INTEL_NVD_API_KEY: { field: 'intelNvdApiKey', kind: 'string' },
  RAMPART_INTEL_NVD_PAGE_SIZE: { field: 'intelNvdPageSize', kind: 'int' },
  RAMPART_INTEL_KEV_URL: { field: 'intelKevUrl', kind: 'string' },
  RAMPART_INTEL_EPSS_URL: { field: 'intelEpssUrl', kind: 'string' },
  RAMPART_INTEL_OSV_URL: { field: 'intelOsvUrl', kind: 'string' },
  RAMPART_INTEL_OSV_ECOSYSTEMS: { field: 'intelOsvEcosystems', kind: 'string' },
  RAMPART_INTEL_SYNC_URLS: { field: 'intelSyncUrls', kind: 'string' },
  RAMPART_INTEL_SYNC_HOURS: { field: 'intelSyncHours', kind: 'int' },
  RAMPART_INTEL_MAX_BYTES: { field: 'intelMaxBytes', kind: 'int' },
  RAMPART_PARSE_MAX_DEPTH: { field: 'parseMaxDepth', kind: 'int' },
  RAMPART_PARSE_MAX_ATTRIBUTES: { field: 'parseMaxAttributes', kind: 'int' },
  RAMPART_PARSE_MAX_TEXT_BYTES: { field: 'parseMaxTextBytes', kind: 'int' },
  RAMPART_PARSE_MAX_ELEMENTS: { field: 'parseMaxElements', kind: 'int' },
  RAMPART_SCAN_ALLOW_LOOPBACK: { field: 'scanAllowLoopback', kind: 'bool' },
  RAMPART_NOTIFY_ALLOW_LOOPBACK: { field: 'notifyAllowLoopback', kind: 'bool' },
  RAMPART_NOTIFY_ALLOW_PRIVATE: { field: 'notifyAllowPrivate', kind: 'bool' },
  RAMPART_SSO_ALLOW_LOOPBACK: { field: 'ssoAllowLoopback', kind: 'bool' },
  RAMPART_TRUST_PROXY: { field: 'trustProxy', kind: 'bool' },
  RAMPART_LOCAL_SCAN_NODE: { field: 'localScanNode', kind: 'bool' },
  RAMPART_SHUTDOWN_TIMEOUT: { field: 'shutdownTimeoutSeconds', kind: 'int' },
  RAMPART_ADMIN_EMAIL: { field: 'adminEmail', kind: 'string' },
  RAMPART_ADMIN_PASSWORD: { field: 'adminPassword', kind: 'string' },
  RAMPART_SMTP_URL: { field: 'smtpUrl', kind: 'string' },
  RAMPART_SMTP_USER: { field: 'smtpUser', kind: 'string' },
  RAMPART_SMTP_PASSWORD: { field: 'smtpPassword', kind: 'string' },
  RAMPART_MAIL_FROM: { field: 'mailFrom', kind: 'string' },
  RAMPART_SMTP_TLS_CA: { field: 'smtpTlsCa', kind: 'string' },
  RAMPART_SMTP_TLS_REJECT_UNAUTHORIZED: { field: 'smtpTlsRejectUnauthorized', kind: 'bool' },
};

const FIELD_TO_ENV = Object.fromEntries(Object.entries(SOURCES).map(([env, s]) => [s.field, env]));

function readValue(
  env: string,
  kind: string,
  text: string,
  problems: string[],
  readFile: (p: string) => string,
): unknown {
  const raw = text.trim();
  switch (kind) {
    case 'int':
      if (!/^-?\d+$/.test(raw)) {
        problems.push(`${env}="${raw}" is not a whole number`);
        return undefined;
      }
      return Number(raw);
    case 'bool':
      if (/^(true|1|yes)$/i.test(raw)) return true;
      if (/^(false|0|no)$/i.test(raw)) return false;
      problems.push(`${env}="${raw}" must be true or false`);
      return undefined;
    case 'json': {
      let source = raw;
      if (raw.startsWith('@')) {
        try {
          source = readFile(raw.slice(1));
        } catch (e) {
          problems.push(
            `${env}: cannot read ${raw.slice(1)} (${(e as NodeJS.ErrnoException).code ?? 'error'})`,
          );
          return undefined;
        }
      }
      try {
        return JSON.parse(source);
      } catch (e) {
        problems.push(`${env} is not valid JSON: ${(e as Error).message}`);
        return undefined;
      }
    }
    default:
      return raw;
  }
}

/**
 * Reads and validates the configuration. All problems are reported at once, naming the
 * environment variable, so that an operator fixes them in one pass.
 */
export function loadConfig(
  env: Record<string, string | undefined> = process.env,
  readFile: (p: string) => string = () => {
    throw new Error('no file reader');
  },
): Config {
  const problems: string[] = [];
  const input: Record<string, unknown> = {};
  for (const [name, source] of Object.entries(SOURCES)) {
    const text = env[name];
    if (text === undefined || text.trim() === '') continue;
    const value = readValue(name, source.kind, text, problems, readFile);
    if (value !== undefined) input[source.field] = value;
  }
  const withDefaults = Value.Default(ConfigSchema, input) as Record<string, unknown>;
  // Field by field: TypeBox stops reporting after a failed union, and an operator wants every problem at once.
  for (const [field, schema] of Object.entries(ConfigSchema.properties)) {
    const value = withDefaults[field];
    if (value === undefined) continue;
    const name = FIELD_TO_ENV[field] ?? field;
    const choices = (schema as { anyOf?: { const?: unknown }[] }).anyOf?.map((s) => s.const);
    if (choices?.every((c) => typeof c === 'string')) {
      if (!(choices as unknown[]).includes(value))
        problems.push(`${name}="${String(value)}" must be one of ${choices.join(', ')}`);
      continue;
    }
    for (const error of Value.Errors(schema, value)) {
      const where = error.instancePath.slice(1);
      problems.push(`${name}${where ? ` (${where})` : ''}: ${error.message}`);
    }
  }
  problems.push(...mailProblems(withDefaults));
  problems.push(...metricsProblems(withDefaults, env));
  if (problems.length > 0) throw new ConfigError([...new Set(problems)]);
  const config = withDefaults as Static<typeof ConfigSchema>;
  const baseUrl = (config.baseUrl ?? `http://localhost:${config.port}`).replace(/\/+$/, '');
  return { ...config, baseUrl, dataDir: path.resolve(config.dataDir) };
}

/** What is wrong with the metrics settings together (each alone is checked by the schema). */
function metricsProblems(config: Record<string, unknown>, env: Record<string, string | undefined>): string[] {
  const problems: string[] = [];
  if (config.metricsPort !== undefined && config.metricsPort === config.port)
    problems.push(
      `RAMPART_METRICS_PORT must differ from RAMPART_PORT (${String(config.port)}): the metrics port is a server of its own`,
    );
  if (env.RAMPART_METRICS_HOST?.trim() && config.metricsPort === undefined)
    problems.push(
      'RAMPART_METRICS_HOST is set without RAMPART_METRICS_PORT: set the port too, or leave both out',
    );
  return problems;
}

/** What is wrong with the mail settings, naming the variables (never the password). */
function mailProblems(config: Record<string, unknown>): string[] {
  const url = config.smtpUrl;
  if (typeof url !== 'string') return [];
  const problems: string[] = [];
  const problem = smtpUrlProblem(url);
  if (problem) problems.push(`RAMPART_SMTP_URL ${problem}`);
  if (!config.mailFrom)
    problems.push('RAMPART_MAIL_FROM must be set with RAMPART_SMTP_URL: the sender of Rampart’s email');
  return problems;
}

/** The official sources the scheduled sync reads (or their mirrors); undefined with RAMPART_INTEL_SYNC=off. */
export function officialSourcesOf(
  config: Partial<
    Pick<
      Config,
      | 'intelSync'
      | 'intelNvdUrl'
      | 'intelNvdApiKey'
      | 'intelNvdPageSize'
      | 'intelKevUrl'
      | 'intelEpssUrl'
      | 'intelOsvUrl'
      | 'intelOsvEcosystems'
    >
  >,
): OfficialSources | undefined {
  // Only a loaded configuration says 'on' (its default): a partial one never syncs by accident.
  if (config.intelSync !== 'on') return undefined;
  const ecosystems = config.intelOsvEcosystems?.split(',') ?? [...DEFAULT_OSV_ECOSYSTEMS];
  return {
    nvd: {
      url: config.intelNvdUrl ?? DEFAULT_NVD_URL,
      apiKey: config.intelNvdApiKey,
      resultsPerPage: config.intelNvdPageSize,
    },
    kev: config.intelKevUrl ?? DEFAULT_KEV_URL,
    epss: config.intelEpssUrl ?? DEFAULT_EPSS_URL,
    osv: {
      url: config.intelOsvUrl ?? DEFAULT_OSV_URL,
      ecosystems: [...new Set(ecosystems.map((e) => e.trim()).filter(Boolean))],
    },
  };
}

/** The feed URLs of the scheduled sync (RAMPART_INTEL_SYNC_URLS, separated by spaces). */
export function syncUrlsOf(config: Pick<Config, 'intelSyncUrls'>): string[] {
  return config.intelSyncUrls?.split(/\s+/).filter(Boolean) ?? [];
}
