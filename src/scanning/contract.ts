// The contract between the server and its scan nodes, as TypeBox schemas: what a run asks for (its
// spec) and what it reports (its result items). Both ends check against these same objects: a
// node checks the spec it claimed before it sends a packet, the server checks every batch a node
// sends before any of it is applied. A remote node is another process: neither end trusts the
// other's JSON.
//
// Specs accept properties they do not name, so that a newer server may add a setting an older
// node ignores. Result items accept nothing they do not name: the server stores them.

import { isIP } from 'node:net';
import { type Static, type TSchema, Type } from 'typebox';
import { Compile, type Validator } from 'typebox/compile';
import { Value } from 'typebox/value';
import { checkById } from './checks/index.js';
import { portListOf } from './ports/port-list.js';

/** The scan kinds a node may serve. */
export const SCAN_KINDS = ['Discovery', 'System', 'Web'] as const;
export type ScanKind = (typeof SCAN_KINDS)[number];

/** A day: no budget or timeout of a system scan is longer. */
const DAY_MS = 86_400_000;
const MAX_URL_LENGTH = 2000;
/** What one check may keep beside its evidence, as JSON text. */
const MAX_DETAILS_JSON = 16_000;

const Port = Type.Integer({ minimum: 1, maximum: 65535 });
const Ports = (maxItems = 65535) => Type.Array(Port, { maxItems });
const Text = (maxLength: number) => Type.String({ maxLength });
const NullableText = (maxLength: number) => Type.Union([Type.String({ maxLength }), Type.Null()]);
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const IpAddress = Type.Refine(
  Type.String({ minLength: 2, maxLength: 45 }),
  (value) => isIP(value) !== 0,
  () => 'must be an IPv4 or IPv6 address',
);
/** `top1000`, `all` or a list such as `22,80,8000-8100`, read as the port scanner reads it. */
const PortListText = Type.Refine(
  Type.String({ minLength: 1, maxLength: 4000 }),
  (value) => {
    try {
      portListOf(value);
      return true;
    } catch {
      return false;
    }
  },
  () => 'must be a port list: top1000, all, or ports and ranges such as 22,80,8000-8100',
);
const Whole = (minimum: number, maximum: number) => Type.Integer({ minimum, maximum });
/** Connections or requests per second: above 0, fractions allowed. */
const Rate = (maximum: number) => Type.Number({ exclusiveMinimum: 0, maximum });

// ---- what a run asks for ----------------------------------------------------------------------

/** A target text: a CIDR, a first–last range, an address or a host name. */
const TargetText = Type.String({ minLength: 1, maxLength: 1000 });
const TargetTexts = Type.Array(TargetText, { maxItems: 100_000 });

/** One named target of a scan. */
export const ScanTargetSchema = Type.Object({
  range: TargetText,
  name: Type.Optional(NullableText(1000)),
  /** Targets inside this one to leave out (same syntax). */
  exclude: Type.Optional(TargetTexts),
});

/**
 * Where an organisation lets its scans go. `allowed` and `excluded` hold target texts; the
 * always-refused addresses are refused whatever they say. `allowLoopback` is
 * RAMPART_SCAN_ALLOW_LOOPBACK: it lets 127.0.0.0/8 and ::1 be allowed at all.
 */
export const TargetPolicySchema = Type.Object({
  allowed: TargetTexts,
  excluded: TargetTexts,
  allowLoopback: Type.Boolean(),
});

/** How a discovery run probes: set by its template. */
export const DiscoveryTemplateSchema = Type.Object({
  /** TCP ports probed with a connect on every address; any answer (open or refused) means up. */
  ports: Type.Array(Port, { minItems: 1, maxItems: 65535, uniqueItems: true }),
  /** How long one connect may take before the port counts as silent. */
  timeoutMs: Whole(1, DAY_MS),
  /** Extra connects to a silent port before giving up on it. */
  retries: Whole(0, 10),
  /** Connections in flight at once, all hosts together (the node's limit). */
  maxInFlight: Whole(1, 1_000_000),
  /** New connections started per second, all hosts together (the node's limit). */
  connectionsPerSecond: Rate(1_000_000),
  /** Connections in flight to one host at once. */
  perHostInFlight: Whole(1, 65535),
  /** Look up each live host's name (PTR). */
  reverseDns: Type.Boolean(),
  /** Use `nmap -sn` with the same TCP ports when nmap is installed on the node. */
  useNmap: Type.Boolean(),
});

/** Everything a node needs to run a discovery scan, checks included. */
export const DiscoverySpecSchema = Type.Object({
  targets: Type.Array(ScanTargetSchema, { maxItems: 100_000 }),
  /** Scan-wide exclusions, on top of each target's own. */
  exclusions: TargetTexts,
  template: DiscoveryTemplateSchema,
  /** The organisation's policy when the run was started: the node checks every address again. */
  policy: TargetPolicySchema,
});

/** How a system scan probes: set by its template. */
export const SystemTemplateSchema = Type.Object({
  /** `top1000` (Rampart's well-known list), `all` (1–65535) or a list such as `22,80,8000-8100`. */
  ports: PortListText,
  /** How long one connect may take before the port counts as silent. */
  timeoutMs: Whole(1, DAY_MS),
  /** Extra connects to a silent port before it counts as filtered. */
  retries: Whole(0, 10),
  /** Connections in flight at once, all hosts together. */
  maxInFlight: Whole(1, DAY_MS),
  /** New connections started per second, all hosts together. */
  connectionsPerSecond: Rate(1_000_000),
  /** Connections in flight to one host at once. */
  perHostInFlight: Whole(1, DAY_MS),
  /** What one open port may take for banners, TLS and checks, all together. */
  portBudgetMs: Whole(1, DAY_MS),
  /** What one host may take; its results so far are kept when it runs out. */
  hostBudgetMs: Whole(1, DAY_MS),
  /** What the whole run may take; results so far are kept when it runs out. */
  runBudgetMs: Whole(1, DAY_MS),
  /** Banner grabbing and fingerprints on open ports. */
  serviceDetection: Type.Boolean(),
  /** TLS versions, ciphers and certificate on ports that speak TLS. */
  tlsChecks: Type.Boolean(),
  /** The safe checks: cleartext protocols, databases without authentication, weak SSH algorithms. */
  safeChecks: Type.Boolean(),
  /** Add `nmap -sV` detections of the open ports when nmap is installed on the node. */
  useNmapVersionDetection: Type.Boolean(),
});

/** Everything a node needs to run a system scan. */
export const SystemSpecSchema = Type.Object({
  targets: Type.Array(ScanTargetSchema, { maxItems: 100_000 }),
  exclusions: TargetTexts,
  template: SystemTemplateSchema,
  /** A Verify run scans only these ports (same syntax as the template's); else the template's. */
  portsOverride: Type.Optional(Nullable(PortListText)),
  policy: TargetPolicySchema,
});

/** How a web scan probes: set by its template. */
export const WebTemplateSchema = Type.Refine(
  Type.Object({
    /** How long one request may take. */
    requestTimeoutMs: Whole(100, 120_000),
    /** What one URL may take for all of its checks (at least one request's timeout). */
    urlBudgetMs: Whole(1_000, 3_600_000),
    /** What the whole run may take. */
    runBudgetMs: Whole(1_000, 7 * DAY_MS),
    /** Requests started per second, all URLs together. */
    requestsPerSecond: Rate(1000),
    /** TLS versions and certificate. */
    tlsChecks: Type.Boolean(),
    /** Security headers (scored as Mozilla's HTTP Observatory scores them) and cookie flags. */
    headerChecks: Type.Boolean(),
    /** Exposed files and paths, judged against a soft-404 baseline. */
    exposedFiles: Type.Boolean(),
  }),
  (t) => t.urlBudgetMs >= t.requestTimeoutMs,
  () => 'urlBudgetMs must be at least requestTimeoutMs',
);

/** Everything a node needs to run a web scan. */
export const WebSpecSchema = Type.Object({
  /** Absolute http(s) URLs; their hosts are checked against the policy like system targets. */
  urls: Type.Array(Type.String({ minLength: 1, maxLength: 2048 }), { maxItems: 100_000 }),
  template: WebTemplateSchema,
  policy: TargetPolicySchema,
});

// ---- what a run reports -----------------------------------------------------------------------

/** Why an address or a target was refused: the rule, and a sentence naming the target. */
export const REFUSAL_RULES = [
  'Syntax',
  'TooLarge',
  'AlwaysRefused',
  'Loopback',
  'NotAllowed',
  'Excluded',
  'Unresolved',
] as const;
const RefusalRule = Type.Enum(REFUSAL_RULES);

/**
 * An address the node would not scan, or a target name that did not resolve: emitted among a
 * run's results of any kind (tagged `refused`), so that the run names every one and the reason.
 */
export const RefusedAddressSchema = Type.Object(
  {
    refused: Type.Literal(true),
    /** The address, or the target's host name when it did not resolve. */
    address: Type.String({ minLength: 1, maxLength: 300 }),
    rule: RefusalRule,
    message: Text(1000),
  },
  { additionalProperties: false },
);

/** One live host, as discovery reports it. */
export const DiscoveredHostSchema = Type.Object(
  {
    address: IpAddress,
    hostname: NullableText(255),
    /** Probe ports that accepted the connection. */
    openPorts: Ports(),
    /** Probe ports that answered with a refusal (the host is up, the port closed). */
    closedPorts: Ports(),
    /** Only when the host is on the node's own segment (read from the neighbour table). */
    macAddress: NullableText(17),
    /** A light guess from what answered ("Linux", "Windows", …), or null. */
    osGuess: NullableText(100),
  },
  { additionalProperties: false },
);

/** One open port as a system scan identified it. */
export const ScannedServiceSchema = Type.Object(
  {
    port: Port,
    protocol: Type.Literal('tcp'),
    /** `ssh`, `http`, `https`, `ftp`, `smtp`, `mysql`, `postgresql`, `redis`, …; null when unknown. */
    service: NullableText(100),
    product: NullableText(255),
    version: NullableText(100),
    /** CPE 2.3 names, one per vendor alias (src/scanning/fingerprints/vendors.ts). */
    cpes: Type.Array(Text(500), { maxItems: 20 }),
    confidence: Type.Number({ minimum: 0, maximum: 1 }),
    /** The banner's first line, control characters replaced; null when none. */
    banner: NullableText(512),
    /** What identified it, for the finding's evidence. */
    evidence: Text(4000),
    /** The port answered a TLS handshake (the service runs inside TLS). */
    tls: Type.Boolean(),
    /** Who identified it: Rampart's own probes or nmap -sV. */
    detectedBy: Type.Union([Type.Literal('rampart'), Type.Literal('nmap')]),
  },
  { additionalProperties: false },
);

/** Anything more a check wants kept (the accepted versions, a cipher list, …): plain JSON, bounded. */
const CheckDetails = Type.Refine(
  Type.Record(Type.String(), Type.Unknown()),
  (details) => JSON.stringify(details).length <= MAX_DETAILS_JSON,
  () => `must be at most ${MAX_DETAILS_JSON} characters of JSON`,
);

/**
 * A check that found something, by its catalogue id. Checks that passed are not reported. The
 * severity, title and advice come from the catalogue (src/scanning/checks), shared by both ends.
 */
export const CheckResultSchema = Type.Object(
  {
    /** A catalogue id, stable forever (`tls.legacy-version`, `web.exposed-git`, …). */
    checkId: Type.String({ minLength: 1, maxLength: 200 }),
    /** System scans: the port it was found on; null for a host-wide result. */
    port: Nullable(Port),
    /** Web scans: the URL it was found on; null in system scans. */
    url: NullableText(MAX_URL_LENGTH),
    /** What was seen: a banner, a certificate summary, or a request/response excerpt. */
    evidence: Text(4000),
    details: Type.Optional(CheckDetails),
  },
  { additionalProperties: false },
);

/** A check a system scan reports: one of the catalogue's system or TLS checks, on no URL. */
const SystemCheckSchema = Type.Refine(
  CheckResultSchema,
  (c) => {
    const definition = checkById(c.checkId);
    return definition !== undefined && definition.scan !== 'Web' && c.url === null;
  },
  () => 'must be a check of the catalogue that system scans run, with url null',
);

/** One host of a system scan, emitted once as the host finishes. */
export const SystemHostResultSchema = Type.Object(
  {
    address: IpAddress,
    hostname: NullableText(255),
    /**
     * Whether the host answered at all: a port accepted or refused a connection, or (on the
     * node's own segment) it answered ARP/NDP. False: every probe went unanswered. Nodes that
     * predate it do not send it: the server takes it as true.
     */
    answered: Type.Optional(Type.Boolean({ default: true })),
    openPorts: Ports(),
    /** Ports that refused (up to 64 listed, as the port scanner reports them); null when more. */
    closedPorts: Nullable(Ports(64)),
    filtered: Type.Integer({ minimum: 0, maximum: 65535 }),
    /** Ports not scanned because a budget ran out: their earlier findings are not judged. */
    unscannedPorts: Ports(),
    services: Type.Array(ScannedServiceSchema, { maxItems: 65535 }),
    checks: Type.Array(SystemCheckSchema, { maxItems: 10_000 }),
    /** 'port' when some port's probes were cut short, 'host' or 'run' when a budget ran out. */
    budgetExhausted: Nullable(Type.Union([Type.Literal('port'), Type.Literal('host'), Type.Literal('run')])),
    /**
     * The run's template had TLS checks on: every port examined to the end had its TLS judged, so
     * a TLS finding there that this run did not report is gone, whichever scan found it.
     */
    tlsChecked: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

/** Software a web server names in its headers (Server, X-Powered-By, …). */
export const WebSoftwareSchema = Type.Object(
  {
    header: Text(100),
    value: Text(1000),
    product: NullableText(200),
    version: NullableText(100),
    cpes: Type.Array(Text(500), { maxItems: 20 }),
  },
  { additionalProperties: false },
);

/** One URL of a web scan, emitted once as its checks finish. */
export const WebUrlResultSchema = Type.Object(
  {
    url: Text(MAX_URL_LENGTH),
    /** Where redirects ended (only within the same host and allowed targets). */
    finalUrl: NullableText(MAX_URL_LENGTH),
    status: Nullable(Type.Integer({ minimum: 100, maximum: 999 })),
    /** The address the URL's host resolved to and that was checked against the policy. */
    address: Nullable(IpAddress),
    software: Type.Array(WebSoftwareSchema, { maxItems: 50 }),
    checks: Type.Array(CheckResultSchema, { maxItems: 500 }),
    /** The Observatory-style score (0–100+, grade A+–F), or null when headers were not checked. */
    headerScore: Nullable(
      Type.Object({ score: Type.Number(), grade: Text(3) }, { additionalProperties: false }),
    ),
    /** Checks that could not be judged, in words (`SSLv3 cannot be probed from this node`, …). */
    notes: Type.Array(Text(1000), { maxItems: 100 }),
    /** Why the URL could not be scanned at all, or null. */
    error: NullableText(2000),
    budgetExhausted: Nullable(Type.Union([Type.Literal('url'), Type.Literal('run')])),
    /**
     * The port of the https endpoint whose TLS this URL's checks judged (a handshake completed on
     * `address`), or null: TLS findings are the endpoint's, shared with system scans.
     */
    tlsPort: Type.Optional(Nullable(Port)),
    /**
     * An https URL's http counterpart, asked whether it redirects to https: where
     * `web.no-https-redirect` is filed (only an http URL can lack the redirect). Null when not asked.
     */
    httpCounterpart: Type.Optional(NullableText(MAX_URL_LENGTH)),
  },
  { additionalProperties: false },
);

// ---- the types both ends use ------------------------------------------------------------------

export type ScanTarget = Static<typeof ScanTargetSchema>;
export type TargetPolicy = Static<typeof TargetPolicySchema>;
export type DiscoveryTemplate = Static<typeof DiscoveryTemplateSchema>;
export type DiscoverySpec = Static<typeof DiscoverySpecSchema>;
export type SystemTemplate = Static<typeof SystemTemplateSchema>;
export type SystemSpec = Static<typeof SystemSpecSchema>;
export type WebTemplate = Static<typeof WebTemplateSchema>;
export type WebSpec = Static<typeof WebSpecSchema>;
export type RefusedAddress = Static<typeof RefusedAddressSchema>;
export type DiscoveredHost = Static<typeof DiscoveredHostSchema>;
export type ScannedService = Static<typeof ScannedServiceSchema>;
export type CheckResult = Static<typeof CheckResultSchema>;
export type WebSoftware = Static<typeof WebSoftwareSchema>;
export type WebUrlResult = Static<typeof WebUrlResultSchema>;
/**
 * A system host as engines send it and as the server hands it on: `answered` is always there
 * (the server fills it in for nodes that predate it, see `checkBatch`).
 */
export type SystemHostResult = Omit<Static<typeof SystemHostResultSchema>, 'answered'> & {
  answered: boolean;
};

/** A run's spec, by kind. */
export interface ScanSpecs {
  Discovery: DiscoverySpec;
  System: SystemSpec;
  Web: WebSpec;
}
export type ScanSpec = ScanSpecs[ScanKind];

/** A run's result items, by kind (refused addresses aside, which every kind may send). */
export interface ScanResults {
  Discovery: DiscoveredHost;
  System: SystemHostResult;
  Web: WebUrlResult;
}

/** The schema of each kind's spec: what a node checks before it runs a claimed run. */
export const SPEC_SCHEMAS = {
  Discovery: DiscoverySpecSchema,
  System: SystemSpecSchema,
  Web: WebSpecSchema,
} as const satisfies Record<ScanKind, TSchema>;

/** The schema of each kind's result items: what the server checks in every batch. */
export const RESULT_SCHEMAS = {
  Discovery: DiscoveredHostSchema,
  System: SystemHostResultSchema,
  Web: WebUrlResultSchema,
} as const satisfies Record<ScanKind, TSchema>;

// ---- checking ---------------------------------------------------------------------------------

/** One thing wrong in a spec or a batch: a JSON pointer into it and what is wrong there. */
export interface ContractIssue {
  path: string;
  message: string;
}

/** Issues named at most: enough to fix the sender, not a flood. */
const ISSUES_NAMED = 20;

const specValidators = new Map<ScanKind, Validator>(
  SCAN_KINDS.map((kind) => [kind, Compile(SPEC_SCHEMAS[kind]) as Validator]),
);
const resultValidators = new Map<ScanKind, Validator>(
  SCAN_KINDS.map((kind) => [kind, Compile(RESULT_SCHEMAS[kind]) as Validator]),
);
const refusedValidator = Compile(RefusedAddressSchema);

/**
 * What is wrong with `value`, by JSON pointer under `base`: one issue per place, its messages
 * joined (a value that may be null or a port says both), at most ISSUES_NAMED places.
 */
function issuesOf(validator: Validator, value: unknown, base: string): ContractIssue[] {
  const byPath = new Map<string, string[]>();
  for (const error of validator.Errors(value)) {
    // "must match a schema in anyOf" only repeats what its branches said.
    if (error.keyword === 'anyOf' || error.keyword === 'boolean') continue;
    // A missing property is named where it belongs: `/template/ports is required`.
    const missing = error.keyword === 'required' ? (error.params as { requiredProperties?: string[] }) : {};
    const places = missing.requiredProperties?.map((name) => [
      `${error.instancePath}/${name}`,
      'is required',
    ]) ?? [[error.instancePath, error.message]];
    for (const [where, message] of places) {
      const path = `${base}${where}`;
      const messages = byPath.get(path) ?? [];
      if (!messages.includes(message!)) messages.push(message!);
      byPath.set(path, messages);
    }
    if (byPath.size > ISSUES_NAMED) break;
  }
  return [...byPath]
    .slice(0, ISSUES_NAMED)
    .map(([path, messages]) => ({ path: path || '/', message: messages.join(' or ') }));
}

/** The issues of a spec of `kind`; none when it is one a node can run. */
export function specIssues(kind: ScanKind, spec: unknown): ContractIssue[] {
  const validator = specValidators.get(kind)!;
  return validator.Check(spec) ? [] : issuesOf(validator, spec, '');
}

/** A spec the contract refuses: its message names each place at fault. */
export class ContractError extends Error {
  constructor(
    message: string,
    readonly issues: readonly ContractIssue[],
  ) {
    super(message);
    this.name = 'ContractError';
  }
}

/** The run's spec as its kind's contract says, or a ContractError naming where it is not. */
export function readSpec<K extends ScanKind>(kind: K, spec: unknown): ScanSpecs[K] {
  const issues = specIssues(kind, spec);
  if (issues.length > 0)
    throw new ContractError(
      `The run's spec is not a ${kind} spec this node can run: ${describeIssues(issues)}`,
      issues,
    );
  return spec as ScanSpecs[K];
}

export function describeIssues(issues: readonly ContractIssue[]): string {
  return issues.map((i) => `${i.path} ${i.message}`).join('; ');
}

/** Whether an item of a batch claims to be a refused address (then it is checked as one). */
export function isRefusal(item: unknown): boolean {
  return typeof item === 'object' && item !== null && 'refused' in item;
}

/** A batch of a run of `kind`, checked item by item: its refused addresses and its results. */
export interface CheckedBatch<K extends ScanKind> {
  refused: RefusedAddress[];
  results: ScanResults[K][];
}

/**
 * Checks every item of a batch against the contract of the run's kind (an item tagged `refused`
 * against RefusedAddress). Returns the issues (pointers under `base`, e.g. `/Items/3/checks/0/port`)
 * when any item breaks it, else the items split and with the contract's defaults filled in.
 */
export function checkBatch<K extends ScanKind>(
  kind: K,
  items: readonly unknown[],
  base = '',
): { issues: ContractIssue[] } | { batch: CheckedBatch<K> } {
  const results = resultValidators.get(kind)!;
  const issues: ContractIssue[] = [];
  items.forEach((item, i) => {
    if (issues.length >= ISSUES_NAMED) return;
    const validator = isRefusal(item) ? (refusedValidator as unknown as Validator) : results;
    if (!validator.Check(item)) issues.push(...issuesOf(validator, item, `${base}/${i}`));
  });
  if (issues.length > 0) return { issues: issues.slice(0, ISSUES_NAMED) };
  const batch: CheckedBatch<K> = { refused: [], results: [] };
  for (const item of items) {
    if (isRefusal(item)) batch.refused.push(item as RefusedAddress);
    else batch.results.push(Value.Default(RESULT_SCHEMAS[kind], item) as ScanResults[K]);
  }
  return { batch };
}

/** An item as a RefusedAddress when the contract says it is one, else null. */
export function refusedAddressOf(item: unknown): RefusedAddress | null {
  return refusedValidator.Check(item) ? (item as RefusedAddress) : null;
}
