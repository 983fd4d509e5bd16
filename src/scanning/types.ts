// The contract between the server, the scan nodes and the scan engines: what a run asks for, what
// it reports, and how an engine is driven. Plain data only, so that it travels as JSON between a
// server and a remote node exactly as it is handed to the local node.

/** The scan kinds a node may serve. System and web scans arrive in part 2. */
export const SCAN_KINDS = ['Discovery', 'System', 'Web'] as const;
export type ScanKind = (typeof SCAN_KINDS)[number];

/**
 * Where an organisation lets its scans go. `allowed` and `excluded` hold target texts (a CIDR, a
 * first–last range or a host name); the always-refused addresses are refused whatever they say.
 */
export interface TargetPolicy {
  allowed: string[];
  excluded: string[];
  /** RAMPART_SCAN_ALLOW_LOOPBACK: lets 127.0.0.0/8 and ::1 be allowed at all. */
  allowLoopback: boolean;
}

/** Why an address or a target was refused: the rule, and a sentence naming the target. */
export interface TargetRefusal {
  rule: 'Syntax' | 'TooLarge' | 'AlwaysRefused' | 'Loopback' | 'NotAllowed' | 'Excluded' | 'Unresolved';
  message: string;
}

/** One named target of a scan: a CIDR, a first–last range, an address or a host name. */
export interface ScanTarget {
  range: string;
  name?: string | null;
  /** Targets inside this one to leave out (same syntax). */
  exclude?: string[];
}

/** How a discovery run probes: set by its template. */
export interface DiscoveryTemplate {
  /** TCP ports probed with a connect on every address; any answer (open or refused) means up. */
  ports: number[];
  /** How long one connect may take before the port counts as silent. */
  timeoutMs: number;
  /** Extra connects to a silent port before giving up on it. */
  retries: number;
  /** Connections in flight at once, all hosts together (the node's limit). */
  maxInFlight: number;
  /** New connections started per second, all hosts together (the node's limit). */
  connectionsPerSecond: number;
  /** Connections in flight to one host at once. */
  perHostInFlight: number;
  /** Look up each live host's name (PTR). */
  reverseDns: boolean;
  /** Use `nmap -sn` with the same TCP ports when nmap is installed on the node. */
  useNmap: boolean;
}

/** Everything a node needs to run a discovery scan, checks included. */
export interface DiscoverySpec {
  targets: ScanTarget[];
  /** Scan-wide exclusions, on top of each target's own. */
  exclusions: string[];
  template: DiscoveryTemplate;
  /** The organisation's policy when the run was started: the node checks every address again. */
  policy: TargetPolicy;
}

/** One live host, as discovery reports it. */
export interface DiscoveredHost {
  address: string;
  hostname: string | null;
  /** Probe ports that accepted the connection. */
  openPorts: number[];
  /** Probe ports that answered with a refusal (the host is up, the port closed). */
  closedPorts: number[];
  /** Only when the host is on the node's own segment (read from the neighbour table). */
  macAddress: string | null;
  /** A light guess from what answered ("Linux", "Windows", …), or null. */
  osGuess: string | null;
}

/** Where a run is: addresses done of all, and hosts found so far. */
export interface ScanProgress {
  done: number;
  total: number;
  found: number;
}

/** What a node hands an engine for one run. */
export interface RunContext {
  /** Aborts when the run is stopped or its lease is lost: the engine stops sending at once. */
  signal: AbortSignal;
  /** Results, in order; the node batches them to the server. */
  emit(items: unknown[]): Promise<void>;
  progress(progress: ScanProgress): void;
  log(message: string, details?: Record<string, unknown>): void;
}

/** Runs one scan of its kind. Resolves when done; throws to fail the run with the message. */
export type RunExecutor = (spec: unknown, context: RunContext) => Promise<void>;
