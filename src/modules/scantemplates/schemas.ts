import { Type } from 'typebox';
import { SCAN_KINDS } from '../../scanning/types.js';

export const ScanKindSchema = Type.Enum(SCAN_KINDS, {
  description:
    'What a scan does: Discovery finds live hosts; System and Web scans arrive in a later release.',
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

export const ScanTemplateSchema = Type.Object(
  {
    Id: Type.String({ format: 'uuid' }),
    Kind: ScanKindSchema,
    Name: Type.String(),
    Description: Type.Union([Type.String(), Type.Null()]),
    BuiltIn: Type.Boolean({
      description: 'Built-in templates belong to every organisation and cannot be changed.',
    }),
    Settings: DiscoverySettingsSchema,
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
    Name: Type.String({ minLength: 1, maxLength: 200 }),
    Description: Type.Optional(Type.Union([Type.String({ maxLength: 2000 }), Type.Null()])),
    Settings: DiscoverySettingsSchema,
  },
  { additionalProperties: false },
);

export const ScanTemplateIdParams = Type.Object(
  { Id: Type.String({ format: 'uuid' }) },
  { additionalProperties: false },
);
