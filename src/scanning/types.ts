// The contract between the server, the scan nodes and the scan engines: what a run asks for, what
// it reports, and how an engine is driven. Plain data only, so that it travels as JSON between a
// server and a remote node exactly as it is handed to the local node.

/** The scan kinds a node may serve. */
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

// ---------------------------------------------------------------------------------------------
// System and web scans (part 2). An engine reports what it saw; the server turns it into services
// and findings. Severity, title and advice of a check come from the catalogue
// (src/scanning/checks), which the node and the server share, so a node sends only the check id.

/** How a system scan probes: set by its template. */
export interface SystemTemplate {
  /** `top1000` (Rampart's well-known list), `all` (1–65535) or a list such as `22,80,8000-8100`. */
  ports: string;
  /** How long one connect may take before the port counts as silent. */
  timeoutMs: number;
  /** Extra connects to a silent port before it counts as filtered. */
  retries: number;
  /** Connections in flight at once, all hosts together. */
  maxInFlight: number;
  /** New connections started per second, all hosts together. */
  connectionsPerSecond: number;
  /** Connections in flight to one host at once. */
  perHostInFlight: number;
  /** What one open port may take for banners, TLS and checks, all together. */
  portBudgetMs: number;
  /** What one host may take; its results so far are kept when it runs out. */
  hostBudgetMs: number;
  /** What the whole run may take; results so far are kept when it runs out. */
  runBudgetMs: number;
  /** Banner grabbing and fingerprints on open ports. */
  serviceDetection: boolean;
  /** TLS versions, ciphers and certificate on ports that speak TLS. */
  tlsChecks: boolean;
  /** The safe checks: cleartext protocols, databases without authentication, weak SSH algorithms. */
  safeChecks: boolean;
  /** Add `nmap -sV` detections of the open ports when nmap is installed on the node. */
  useNmapVersionDetection: boolean;
}

/** Everything a node needs to run a system scan. */
export interface SystemSpec {
  targets: ScanTarget[];
  exclusions: string[];
  template: SystemTemplate;
  /** A Verify run scans only these ports (same syntax as SystemTemplate.ports); else the template's. */
  portsOverride?: string | null;
  policy: TargetPolicy;
}

/** One open port as a system scan identified it. */
export interface ScannedService {
  port: number;
  protocol: 'tcp';
  /** `ssh`, `http`, `https`, `ftp`, `smtp`, `imap`, `pop3`, `mysql`, `postgresql`, `redis`, …; null when unknown. */
  service: string | null;
  product: string | null;
  version: string | null;
  /** CPE 2.3 names, one per vendor alias (src/scanning/fingerprints/vendors.ts). */
  cpes: string[];
  /** 0–1. */
  confidence: number;
  /** The banner's first line, control characters replaced, at most 512 characters; null when none. */
  banner: string | null;
  /** What identified it, for the finding's evidence. */
  evidence: string;
  /** The port answered a TLS handshake (the service runs inside TLS). */
  tls: boolean;
  /** Who identified it: Rampart's own probes or nmap -sV. */
  detectedBy: 'rampart' | 'nmap';
}

/** A check that found something, by its catalogue id. Checks that passed are not reported. */
export interface CheckResult {
  /** A catalogue id, stable forever (`tls.legacy-version`, `web.exposed-git`, …). */
  checkId: string;
  /** System scans: the port it was found on; null for a host-wide result. */
  port: number | null;
  /** Web scans: the URL it was found on. */
  url: string | null;
  /** What was seen: a banner, a certificate summary, or a request/response excerpt (≤ 4,000 characters). */
  evidence: string;
  /** Anything more a check wants kept (the accepted versions, a cipher list, …): plain JSON. */
  details?: Record<string, unknown>;
}

/** One host of a system scan, emitted once as the host finishes. */
export interface SystemHostResult {
  address: string;
  hostname: string | null;
  openPorts: number[];
  /** Ports that refused (up to 64 listed, as the port scanner reports them); null when more. */
  closedPorts: number[] | null;
  filtered: number;
  /** Ports not scanned because a budget ran out: their earlier findings are not judged. */
  unscannedPorts: number[];
  services: ScannedService[];
  checks: CheckResult[];
  /** 'port' when some port's probes were cut short, 'host' or 'run' when a budget ran out. */
  budgetExhausted: 'port' | 'host' | 'run' | null;
  /**
   * The run's template had TLS checks on: every port examined to the end had its TLS judged, so
   * a TLS finding there that this run did not report is gone, whichever scan found it. Absent
   * from older nodes (then only this scan's own findings are judged).
   */
  tlsChecked?: boolean;
}

/** How a web scan probes: set by its template. */
export interface WebTemplate {
  /** How long one request may take. */
  requestTimeoutMs: number;
  /** What one URL may take for all of its checks. */
  urlBudgetMs: number;
  /** What the whole run may take. */
  runBudgetMs: number;
  /** Requests started per second, all URLs together. */
  requestsPerSecond: number;
  /** TLS versions and certificate. */
  tlsChecks: boolean;
  /** Security headers (scored as Mozilla's HTTP Observatory scores them) and cookie flags. */
  headerChecks: boolean;
  /** Exposed files and paths, judged against a soft-404 baseline. */
  exposedFiles: boolean;
}

/** Everything a node needs to run a web scan. */
export interface WebSpec {
  /** Absolute http(s) URLs; their hosts are checked against the policy like system targets. */
  urls: string[];
  template: WebTemplate;
  policy: TargetPolicy;
}

/** Software a web server names in its headers (Server, X-Powered-By, …). */
export interface WebSoftware {
  header: string;
  value: string;
  product: string | null;
  version: string | null;
  cpes: string[];
}

/** One URL of a web scan, emitted once as its checks finish. */
export interface WebUrlResult {
  url: string;
  /** Where redirects ended (only within the same host and allowed targets). */
  finalUrl: string | null;
  status: number | null;
  /** The address the URL's host resolved to and that was checked against the policy. */
  address: string | null;
  software: WebSoftware[];
  checks: CheckResult[];
  /** The Observatory-style score (0–100+, grade A+–F), or null when headers were not checked. */
  headerScore: { score: number; grade: string } | null;
  /** Checks that could not be judged, in words (`SSLv3 cannot be probed from this node`, …). */
  notes: string[];
  /** Why the URL could not be scanned at all, or null. */
  error: string | null;
  budgetExhausted: 'url' | 'run' | null;
  /**
   * The port of the https endpoint whose TLS this URL's checks judged (a handshake completed on
   * `address`), or null: TLS findings are the endpoint's, shared with system scans.
   */
  tlsPort?: number | null;
  /**
   * An https URL's http counterpart, asked whether it redirects to https: where
   * `web.no-https-redirect` is filed (only an http URL can lack the redirect). Null when not asked.
   */
  httpCounterpart?: string | null;
}
