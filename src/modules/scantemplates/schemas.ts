import { type TSchema, Type } from 'typebox';
import { SCAN_KINDS, type ScanKind } from '../../scanning/types.js';

export const ScanKindSchema = Type.Enum(SCAN_KINDS, {
  description:
    'What a scan does: Discovery finds live hosts; System scans probe their ports, services and CVEs; Web scans check sites.',
});

/** Bounds that keep a template from flooding a network or a node. */
export const TEMPLATE_LIMITS = {
  ports: { min: 1, max: 1024 },
  timeoutMs: { min: 100, max: 30_000 },
  retries: { min: 0, max: 3 },
  maxInFlight: { min: 1, max: 4096 },
  connectionsPerSecond: { min: 1, max: 10_000 },
  perHostInFlight: { min: 1, max: 64 },
} as const;

const L = TEMPLATE_LIMITS;

export const DiscoverySettingsSchema = Type.Object(
  {
    Ports: Type.Array(Type.Integer({ minimum: 1, maximum: 65535 }), {
      minItems: L.ports.min,
      maxItems: L.ports.max,
      uniqueItems: true,
      description:
        'TCP ports probed with a connect on every address; any answer (open or refused) means the host is up.',
      examples: [[22, 80, 443, 445, 3389]],
    }),
    TimeoutMs: Type.Integer({
      minimum: L.timeoutMs.min,
      maximum: L.timeoutMs.max,
      description: 'How long one connect may take before the port counts as silent.',
    }),
    Retries: Type.Integer({
      minimum: L.retries.min,
      maximum: L.retries.max,
      description: 'Extra connects to a silent port.',
    }),
    MaxInFlight: Type.Integer({
      minimum: L.maxInFlight.min,
      maximum: L.maxInFlight.max,
      description: 'Connections in flight at once on the scan node, all hosts together.',
    }),
    ConnectionsPerSecond: Type.Integer({
      minimum: L.connectionsPerSecond.min,
      maximum: L.connectionsPerSecond.max,
      description: 'New connections started per second on the scan node, all hosts together.',
    }),
    PerHostInFlight: Type.Integer({
      minimum: L.perHostInFlight.min,
      maximum: L.perHostInFlight.max,
      description: 'Connections in flight to one host at once.',
    }),
    ReverseDns: Type.Boolean({ description: 'Name each live host by reverse DNS (PTR).' }),
    UseNmap: Type.Boolean({
      description: 'Probe through `nmap -sn` with the same ports when nmap is installed on the scan node.',
    }),
  },
  { additionalProperties: false },
);

/** Bounds of a system scan's template: budgets long enough to finish, short enough to end. */
/**
 * A system scan probes many ports of few hosts: like nmap on a local network, it may go much
 * faster than discovery, which probes few ports of many addresses.
 */
export const SYSTEM_LIMITS = {
  connectionsPerSecond: { min: 1, max: 100_000 },
  perHostInFlight: { min: 1, max: 1024 },
  portBudgetMs: { min: 1_000, max: 600_000 },
  hostBudgetMs: { min: 10_000, max: 86_400_000 },
  runBudgetMs: { min: 60_000, max: 7 * 86_400_000 },
} as const;

export const SystemSettingsSchema = Type.Object(
  {
    Ports: Type.String({
      minLength: 1,
      maxLength: 4000,
      description:
        '`top1000` (Rampart’s well-known ports), `all` (1–65535) or a list such as `22,80,8000-8100`.',
      examples: ['top1000', '22,80,443,8000-8100'],
    }),
    TimeoutMs: Type.Integer({ minimum: L.timeoutMs.min, maximum: L.timeoutMs.max }),
    Retries: Type.Integer({ minimum: L.retries.min, maximum: L.retries.max }),
    MaxInFlight: Type.Integer({ minimum: L.maxInFlight.min, maximum: L.maxInFlight.max }),
    ConnectionsPerSecond: Type.Integer({
      minimum: SYSTEM_LIMITS.connectionsPerSecond.min,
      maximum: SYSTEM_LIMITS.connectionsPerSecond.max,
      description: 'New connections started per second, all hosts together.',
    }),
    PerHostInFlight: Type.Integer({
      minimum: SYSTEM_LIMITS.perHostInFlight.min,
      maximum: SYSTEM_LIMITS.perHostInFlight.max,
      description: 'Connections in flight to one host at once: a silent port holds one for TimeoutMs.',
    }),
    PortBudgetMs: Type.Integer({
      minimum: SYSTEM_LIMITS.portBudgetMs.min,
      maximum: SYSTEM_LIMITS.portBudgetMs.max,
      description: 'What one open port may take for banners, TLS and checks, all together.',
    }),
    HostBudgetMs: Type.Integer({
      minimum: SYSTEM_LIMITS.hostBudgetMs.min,
      maximum: SYSTEM_LIMITS.hostBudgetMs.max,
      description: 'What one host may take; its results so far are kept when it runs out.',
    }),
    RunBudgetMs: Type.Integer({
      minimum: SYSTEM_LIMITS.runBudgetMs.min,
      maximum: SYSTEM_LIMITS.runBudgetMs.max,
      description: 'What the whole run may take; results so far are kept when it runs out.',
    }),
    ServiceDetection: Type.Boolean({ description: 'Banner grabbing and fingerprints on open ports.' }),
    TlsChecks: Type.Boolean({ description: 'TLS versions, ciphers and certificate.' }),
    SafeChecks: Type.Boolean({
      description: 'Cleartext protocols, databases without authentication, weak SSH algorithms.',
    }),
    UseNmapVersionDetection: Type.Boolean({
      description: 'Add `nmap -sV` detections when nmap is installed on the scan node.',
    }),
  },
  { additionalProperties: false },
);

export const WEB_LIMITS = {
  requestTimeoutMs: { min: 500, max: 120_000 },
  urlBudgetMs: { min: 5_000, max: 3_600_000 },
  runBudgetMs: { min: 60_000, max: 7 * 86_400_000 },
  requestsPerSecond: { min: 1, max: 100 },
} as const;

export const WebSettingsSchema = Type.Object(
  {
    RequestTimeoutMs: Type.Integer({
      minimum: WEB_LIMITS.requestTimeoutMs.min,
      maximum: WEB_LIMITS.requestTimeoutMs.max,
    }),
    UrlBudgetMs: Type.Integer({ minimum: WEB_LIMITS.urlBudgetMs.min, maximum: WEB_LIMITS.urlBudgetMs.max }),
    RunBudgetMs: Type.Integer({ minimum: WEB_LIMITS.runBudgetMs.min, maximum: WEB_LIMITS.runBudgetMs.max }),
    RequestsPerSecond: Type.Integer({
      minimum: WEB_LIMITS.requestsPerSecond.min,
      maximum: WEB_LIMITS.requestsPerSecond.max,
    }),
    TlsChecks: Type.Boolean(),
    HeaderChecks: Type.Boolean({
      description: 'Security headers (Observatory-style score) and cookie flags.',
    }),
    ExposedFiles: Type.Boolean({
      description: 'Exposed files and paths, judged against a soft-404 baseline.',
    }),
  },
  { additionalProperties: false },
);

export const ScanTemplateSchema = Type.Object(
  {
    Id: Type.String({ format: 'uuid' }),
    Kind: ScanKindSchema,
    Name: Type.String(),
    Description: Type.Union([Type.String(), Type.Null()]),
    BuiltIn: Type.Boolean({
      description: 'Built-in templates belong to every organisation and cannot be changed.',
    }),
    Settings: Type.Union([DiscoverySettingsSchema, SystemSettingsSchema, WebSettingsSchema], {
      description: 'The settings of the template’s Kind.',
    }),
    CreatedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    UpdatedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  },
  { additionalProperties: false },
);

export const ScanTemplateListSchema = Type.Object(
  { Items: Type.Array(ScanTemplateSchema), TotalCount: Type.Integer() },
  { additionalProperties: false },
);

export const ScanTemplateListQuery = Type.Object(
  { Kind: Type.Optional(ScanKindSchema) },
  { additionalProperties: false },
);

export const ScanTemplateBody = Type.Object(
  {
    Kind: Type.Optional(ScanKindSchema),
    Name: Type.String({ minLength: 1, maxLength: 200 }),
    Description: Type.Optional(Type.Union([Type.String({ maxLength: 2000 }), Type.Null()])),
    Settings: Type.Union([DiscoverySettingsSchema, SystemSettingsSchema, WebSettingsSchema], {
      description: 'The settings of the template’s Kind (Discovery when left out).',
    }),
  },
  { additionalProperties: false },
);

/** Each kind's settings, by Kind. */
export const SETTINGS_OF_KIND = {
  Discovery: DiscoverySettingsSchema,
  System: SystemSettingsSchema,
  Web: WebSettingsSchema,
} as const;

/**
 * ScanTemplateBody with Settings of one kind: what a body naming that Kind (Discovery when left
 * out) is checked against, so that its errors are that kind's alone.
 */
const bodyOfKind = (settings: TSchema) =>
  Type.Object({ ...ScanTemplateBody.properties, Settings: settings }, { additionalProperties: false });
export const SCAN_TEMPLATE_BODY_OF_KIND: Record<ScanKind, TSchema> = {
  Discovery: bodyOfKind(SETTINGS_OF_KIND.Discovery),
  System: bodyOfKind(SETTINGS_OF_KIND.System),
  Web: bodyOfKind(SETTINGS_OF_KIND.Web),
};

/** A body whose Kind is not one: checked with Settings left open, so that the answer names Kind. */
export const SCAN_TEMPLATE_BODY_OF_UNKNOWN_KIND = bodyOfKind(Type.Object({}));

/** The body schema a template body is checked against: its own Kind's. */
export function scanTemplateBodySchema(body: unknown): TSchema {
  const kind = typeof body === 'object' && body !== null ? (body as { Kind?: unknown }).Kind : undefined;
  if (kind === undefined) return SCAN_TEMPLATE_BODY_OF_KIND.Discovery;
  return (SCAN_KINDS as readonly unknown[]).includes(kind)
    ? SCAN_TEMPLATE_BODY_OF_KIND[kind as ScanKind]
    : SCAN_TEMPLATE_BODY_OF_UNKNOWN_KIND;
}
