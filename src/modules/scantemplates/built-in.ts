import type { DiscoveryTemplate, ScanKind, SystemTemplate, WebTemplate } from '../../scanning/types.js';
import type { ScanTemplate, ScanTemplateOf, TemplateSettings } from './types.js';

// The templates every organisation has. Their ids are fixed so that a scan saved with one keeps
// it across versions; their settings may be tuned in a release.

/** Ports that answer on most hosts worth knowing about: remote access, web, mail, files, databases. */
const COMMON_PORTS = [
  21, 22, 23, 25, 53, 80, 110, 135, 139, 143, 443, 445, 993, 995, 1723, 3306, 3389, 5900, 8080,
];

const THOROUGH_PORTS = [
  ...COMMON_PORTS,
  7,
  9,
  13,
  37,
  79,
  81,
  88,
  106,
  111,
  113,
  119,
  161,
  179,
  199,
  389,
  427,
  465,
  513,
  514,
  515,
  543,
  544,
  548,
  554,
  587,
  631,
  636,
  646,
  873,
  990,
  1025,
  1026,
  1027,
  1433,
  1521,
  1720,
  1900,
  2000,
  2001,
  2049,
  2121,
  2717,
  3000,
  3128,
  3986,
  4899,
  5000,
  5009,
  5051,
  5060,
  5101,
  5190,
  5357,
  5432,
  5631,
  5666,
  5800,
  5985,
  6000,
  6001,
  6379,
  6646,
  7070,
  8000,
  8008,
  8009,
  8081,
  8443,
  8888,
  9100,
  9200,
  9999,
  10000,
  27017,
  32768,
  49152,
  49153,
  49154,
];

/** Safe defaults: a /24 in seconds without flooding a small router. */
export const DEFAULT_DISCOVERY_SETTINGS: DiscoveryTemplate = {
  ports: COMMON_PORTS,
  timeoutMs: 1000,
  retries: 0,
  maxInFlight: 256,
  connectionsPerSecond: 500,
  perHostInFlight: 4,
  reverseDns: true,
  useNmap: false,
};

/** A built-in template of `kind`: it belongs to every organisation and cannot be changed. */
const builtIn = <K extends ScanKind>(
  kind: K,
  id: string,
  name: string,
  description: string,
  settings: TemplateSettings[K],
): ScanTemplate =>
  ({
    id,
    kind,
    name,
    description,
    builtIn: true,
    settings,
    createdAt: null,
    updatedAt: null,
  }) as ScanTemplateOf<K>;

/** The original service's "Host Discovery [T1]" and three variants. */
const DISCOVERY_TEMPLATES: readonly ScanTemplate[] = [
  builtIn(
    'Discovery',
    '01900000-0000-7000-8000-0000000000d1',
    'Host Discovery [T1]',
    'Finds live hosts with TCP connects to 19 common ports, names them by reverse DNS. The default.',
    DEFAULT_DISCOVERY_SETTINGS,
  ),
  builtIn(
    'Discovery',
    '01900000-0000-7000-8000-0000000000d2',
    'Host Discovery, thorough [T2]',
    'About a hundred ports, one retry and longer timeouts: finds quiet hosts the default misses, more slowly.',
    { ...DEFAULT_DISCOVERY_SETTINGS, ports: [...new Set(THOROUGH_PORTS)], timeoutMs: 1500, retries: 1 },
  ),
  builtIn(
    'Discovery',
    '01900000-0000-7000-8000-0000000000d3',
    'Host Discovery, gentle [T3]',
    'Five ports, one connection per host and 50 new connections a second: for fragile networks and links.',
    {
      ...DEFAULT_DISCOVERY_SETTINGS,
      ports: [22, 80, 443, 445, 3389],
      timeoutMs: 2000,
      retries: 1,
      maxInFlight: 32,
      connectionsPerSecond: 50,
      perHostInFlight: 1,
    },
  ),
  builtIn(
    'Discovery',
    '01900000-0000-7000-8000-0000000000d4',
    'Host Discovery with nmap [T4]',
    'The default probes through `nmap -sn` when nmap is installed on the scan node; Rampart’s own probes otherwise.',
    { ...DEFAULT_DISCOVERY_SETTINGS, useNmap: true },
  ),
];

/**
 * A system scan that finishes a /24 of ordinary hosts in minutes: a second per connect, 30 s for
 * an open port's banners, TLS and checks, 10 minutes a host and 4 hours a run.
 */
export const DEFAULT_SYSTEM_SETTINGS: SystemTemplate = {
  ports: 'top1000',
  timeoutMs: 1000,
  retries: 0,
  // Paced for a local network: top1000 in about half a second, and a host that drops every probe
  // costs its ports / 64 timeouts (about 17 s), not ports / 8.
  maxInFlight: 512,
  connectionsPerSecond: 2000,
  perHostInFlight: 64,
  portBudgetMs: 30_000,
  hostBudgetMs: 600_000,
  runBudgetMs: 4 * 3_600_000,
  serviceDetection: true,
  tlsChecks: true,
  safeChecks: true,
  useNmapVersionDetection: false,
};

/** A web scan of a few sites: 10 s a request, 2 minutes a URL, 20 requests a second (a URL takes about 20). */
export const DEFAULT_WEB_SETTINGS: WebTemplate = {
  requestTimeoutMs: 10_000,
  urlBudgetMs: 120_000,
  runBudgetMs: 3_600_000,
  requestsPerSecond: 20,
  tlsChecks: true,
  headerChecks: true,
  exposedFiles: true,
};

const SYSTEM_TEMPLATES: readonly ScanTemplate[] = [
  builtIn(
    'System',
    '01900000-0000-7000-8000-0000000000e1',
    'System scan, well-known ports [S1]',
    'Rampart’s 1,000 well-known TCP ports: banners and fingerprints, TLS and the safe checks, CVEs of what answers. The default.',
    DEFAULT_SYSTEM_SETTINGS,
  ),
  builtIn(
    'System',
    '01900000-0000-7000-8000-0000000000e2',
    'System scan, all ports [S2]',
    'All 65,535 TCP ports, with the same checks: finds services on unusual ports, and takes much longer.',
    {
      ...DEFAULT_SYSTEM_SETTINGS,
      ports: 'all',
      // nmap -sT's pace on a local network (it sets no rate): 65,535 connects in about a second,
      // on worker threads. At 50,000/s the connects alone took 1.3 s, more than nmap's 1.1 s
      // (bench:scan, bench/README.md); this is the most a template may ask.
      maxInFlight: 4096,
      connectionsPerSecond: 100_000,
      perHostInFlight: 1024,
      hostBudgetMs: 1_800_000,
      runBudgetMs: 12 * 3_600_000,
    },
  ),
  builtIn(
    'System',
    '01900000-0000-7000-8000-0000000000e3',
    'System scan with nmap -sV [S3]',
    'The well-known ports, with `nmap -sV` detections added when nmap is installed on the scan node.',
    { ...DEFAULT_SYSTEM_SETTINGS, useNmapVersionDetection: true },
  ),
];

const WEB_TEMPLATES: readonly ScanTemplate[] = [
  builtIn(
    'Web',
    '01900000-0000-7000-8000-0000000000f1',
    'Web scan [W1]',
    'TLS and certificate, security headers and cookies, exposed files and paths, and CVEs of the software the server names.',
    DEFAULT_WEB_SETTINGS,
  ),
];

export const BUILT_IN_TEMPLATES: readonly ScanTemplate[] = [
  ...DISCOVERY_TEMPLATES,
  ...SYSTEM_TEMPLATES,
  ...WEB_TEMPLATES,
];

export const DEFAULT_DISCOVERY_TEMPLATE_ID = DISCOVERY_TEMPLATES[0]!.id;
export const DEFAULT_SYSTEM_TEMPLATE_ID = SYSTEM_TEMPLATES[0]!.id;
export const DEFAULT_WEB_TEMPLATE_ID = WEB_TEMPLATES[0]!.id;
