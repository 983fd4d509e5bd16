import type { Severity } from '../db/schema.js';
import type { ServiceContext } from '../modules/context.js';
import type { FindingInput } from '../modules/findings/service.js';
import type { Services } from '../services.js';
import catalogueJson from './catalogue.json' with { type: 'json' };

/**
 * Demo data: a small, realistic estate with real CVEs (from NVD, CISA KEV and EPSS records kept in
 * catalogue.json; see NOTICE), so that a new user sees a populated product. Everything it creates
 * is marked: assets carry the tag `demo` and the source `Demo`, tickets start with `[Demo]`.
 * It goes through the same services as people and imports do, so every rule applies.
 */
interface CatalogueEntry {
  cve: string;
  vendor: string;
  product: string;
  description: string;
  cvss: number | null;
  vector: string | null;
  severity: Severity;
  cwe: string[];
  references: string[];
  kev: boolean;
  kevDue: string | null;
  kevName: string | null;
  epss: number | null;
  epssPercentile: number | null;
}

const catalogue = catalogueJson as CatalogueEntry[];

export const DEMO_TAG = 'demo';
export const DEMO_SOURCE = 'Demo';
export const DEMO_TICKET_PREFIX = '[Demo] ';

interface DemoHost {
  name: string;
  ip: string;
  os: string;
  criticality: number;
  internetFacing?: boolean;
  tags: string[];
  /** CVE → port/protocol where it shows. */
  cves: [string, number][];
}

const HOSTS: DemoHost[] = [
  {
    name: 'web-01.demo.example',
    ip: '198.51.100.11',
    os: 'Debian 11',
    criticality: 4,
    internetFacing: true,
    tags: ['web', 'prod'],
    cves: [
      ['CVE-2021-41773', 443],
      ['CVE-2021-42013', 443],
      ['CVE-2023-25690', 443],
      ['CVE-2024-6387', 22],
    ],
  },
  {
    name: 'web-02.demo.example',
    ip: '198.51.100.12',
    os: 'Debian 11',
    criticality: 4,
    internetFacing: true,
    tags: ['web', 'prod'],
    cves: [
      ['CVE-2021-41773', 443],
      ['CVE-2024-6387', 22],
      ['CVE-2024-4577', 443],
    ],
  },
  {
    name: 'proxy-01.demo.example',
    ip: '198.51.100.20',
    os: 'Ubuntu 20.04',
    criticality: 4,
    internetFacing: true,
    tags: ['edge', 'prod'],
    cves: [
      ['CVE-2021-23017', 443],
      ['CVE-2017-7529', 443],
      ['CVE-2013-2028', 80],
      ['CVE-2021-41617', 22],
    ],
  },
  {
    name: 'vpn-01.demo.example',
    ip: '198.51.100.30',
    os: 'FortiOS 6.0',
    criticality: 5,
    internetFacing: true,
    tags: ['edge', 'prod'],
    cves: [['CVE-2018-13379', 10443]],
  },
  {
    name: 'gw-01.demo.example',
    ip: '198.51.100.31',
    os: 'Citrix ADC 13.0',
    criticality: 5,
    internetFacing: true,
    tags: ['edge', 'prod'],
    cves: [['CVE-2019-19781', 443]],
  },
  {
    name: 'mail-01.demo.example',
    ip: '10.20.0.25',
    os: 'Debian 9',
    criticality: 4,
    tags: ['mail', 'prod'],
    cves: [
      ['CVE-2019-10149', 25],
      ['CVE-2019-15846', 25],
      ['CVE-2018-15473', 22],
    ],
  },
  {
    name: 'db-01.demo.example',
    ip: '10.20.1.10',
    os: 'Ubuntu 18.04',
    criticality: 5,
    tags: ['db', 'prod', 'pci'],
    cves: [
      ['CVE-2012-2122', 3306],
      ['CVE-2023-38408', 22],
    ],
  },
  {
    name: 'db-02.demo.example',
    ip: '10.20.1.11',
    os: 'Debian 10',
    criticality: 5,
    tags: ['db', 'prod'],
    cves: [
      ['CVE-2019-9193', 5432],
      ['CVE-2022-0543', 6379],
      ['CVE-2023-28856', 6379],
    ],
  },
  {
    name: 'files-01.demo.example',
    ip: '10.20.2.5',
    os: 'CentOS 6',
    criticality: 3,
    tags: ['files'],
    cves: [
      ['CVE-2007-2447', 445],
      ['CVE-2017-7494', 445],
      ['CVE-2017-0144', 445],
      ['CVE-2015-3306', 21],
      ['CVE-2019-12815', 21],
      ['CVE-2011-2523', 21],
    ],
  },
  {
    name: 'ci-01.demo.example',
    ip: '10.20.3.7',
    os: 'Ubuntu 22.04',
    criticality: 4,
    tags: ['build'],
    cves: [
      ['CVE-2024-23897', 8080],
      ['CVE-2024-6387', 22],
    ],
  },
  {
    name: 'wiki-01.demo.example',
    ip: '10.20.3.8',
    os: 'Ubuntu 20.04',
    criticality: 3,
    tags: ['collab'],
    cves: [['CVE-2022-26134', 8090]],
  },
  {
    name: 'app-01.demo.example',
    ip: '10.20.4.10',
    os: 'Red Hat Enterprise Linux 8',
    criticality: 4,
    tags: ['app', 'prod'],
    cves: [
      ['CVE-2025-24813', 8080],
      ['CVE-2022-22965', 8080],
    ],
  },
  {
    name: 'iis-01.demo.example',
    ip: '10.20.5.3',
    os: 'Windows Server 2003',
    criticality: 2,
    tags: ['legacy'],
    cves: [
      ['CVE-2017-7269', 80],
      ['CVE-2015-1635', 80],
    ],
  },
  {
    name: 'search-01.demo.example',
    ip: '10.20.5.9',
    os: 'Debian 8',
    criticality: 2,
    tags: ['legacy'],
    cves: [['CVE-2015-1427', 9200]],
  },
  {
    name: 'admin-01.demo.example',
    ip: '10.20.6.2',
    os: 'Debian 9',
    criticality: 3,
    tags: ['admin'],
    cves: [
      ['CVE-2019-15107', 10000],
      ['CVE-2010-2075', 6667],
    ],
  },
];

const WEB_APPS: { url: string; name: string; packages: [string, string, string][] }[] = [
  {
    url: 'https://shop.demo.example',
    name: 'Web shop',
    packages: [
      ['CVE-2021-23337', 'lodash', '4.17.20'],
      ['CVE-2021-44906', 'minimist', '1.2.5'],
    ],
  },
  {
    url: 'https://api.demo.example',
    name: 'Public API',
    packages: [
      ['CVE-2023-32681', 'requests', '2.28.2'],
      ['CVE-2022-3602', 'openssl', '3.0.6'],
    ],
  },
];

const DAY = 86_400_000;

const SERVICE_NAMES: Record<number, string> = {
  21: 'ftp',
  22: 'ssh',
  25: 'smtp',
  80: 'http',
  443: 'https',
  445: 'microsoft-ds',
  3306: 'mysql',
  5432: 'postgresql',
  6379: 'redis',
  6667: 'irc',
  8080: 'http-proxy',
  8090: 'http',
  9200: 'elasticsearch',
  10000: 'webmin',
  10443: 'https',
};

function entry(cve: string): CatalogueEntry {
  const e = catalogue.find((c) => c.cve === cve);
  if (!e) throw new Error(`demo catalogue lacks ${cve}`);
  return e;
}

function titleOf(e: CatalogueEntry): string {
  if (e.kevName) return `${e.kevName} (${e.cve})`;
  const sentence = e.description.split(/(?<=\.)\s/)[0] ?? e.description;
  return `${e.cve}: ${sentence.length > 140 ? `${sentence.slice(0, 137)}…` : sentence}`;
}

function vulnerability(e: CatalogueEntry) {
  return {
    source: DEMO_SOURCE,
    title: titleOf(e),
    cveIds: [e.cve],
    description: e.description,
    cweIds: e.cwe,
    severity: e.severity,
    cvss3Score: e.cvss ?? undefined,
    cvss3Vector: e.vector ?? undefined,
    references: e.references,
    kev: e.kev,
    kevDueDate: e.kevDue ?? undefined,
    epssScore: e.epss ?? undefined,
    epssPercentile: e.epssPercentile ?? undefined,
  };
}

/** A demo finding as loaded: what was recorded, and whether this load created it. */
interface DemoFinding {
  id: string;
  input: FindingInput;
  created: boolean;
}

/** Fixed in the weeks before now, a share of the way from first sighting to now. */
const DEMO_FIXES: [string, number][] = [
  ['CVE-2019-15846', 0.4],
  ['CVE-2023-38408', 0.6],
  ['CVE-2023-28856', 0.7],
  ['CVE-2019-12815', 0.35],
];

/** Fixed, then seen again by a later scan: reopened. */
const DEMO_REOPENED: [string, number, number][] = [
  ['CVE-2018-15473', 0.3, 0.6],
  ['CVE-2021-41617', 0.5, 0.8],
];

export interface DemoSummary {
  assets: number;
  findings: number;
  tickets: number;
}

/** Loads the demo estate into an organisation; running it twice adds nothing new. */
export async function loadDemo(
  services: Services,
  ctx: ServiceContext,
  now = services.clock(),
): Promise<DemoSummary> {
  const findingsByCve = new Map<string, DemoFinding[]>();
  let findings = 0;
  const seenAt = (daysAgo: number) => new Date(now.getTime() - daysAgo * DAY);
  for (const [i, h] of HOSTS.entries()) {
    const { asset } = await services.assets.observe(ctx, {
      kind: 'Host',
      fqdn: h.name,
      ipAddresses: [h.ip],
      operatingSystem: h.os,
      criticality: h.criticality,
      internetFacing: h.internetFacing ?? false,
      tags: [DEMO_TAG, ...h.tags],
      source: DEMO_SOURCE,
      seenAt: seenAt(60 - i),
    });
    for (const [cve, port] of h.cves) {
      await services.assets.observeService(ctx, asset.id, {
        port,
        protocol: 'tcp',
        name: SERVICE_NAMES[port],
        product: entry(cve).product.replace(/_/g, ' ') || undefined,
        seenAt: seenAt(10),
      });
    }
    const [osName = h.os, osVersion] = h.os.split(/ (?=[\d.]+$)/);
    await services.software.observe(ctx, asset.id, {
      name: osName,
      version: osVersion,
      category: 'OperatingSystem',
      seenAt: seenAt(10),
    });
    // The products the demo scan fingerprinted, as installed software (one per product).
    const products = new Map(h.cves.map(([cve]) => [entry(cve).product, entry(cve)]));
    for (const [product, e] of products) {
      if (!product) continue;
      await services.software.observe(ctx, asset.id, {
        name: product.replace(/_/g, ' '),
        vendor: e.vendor.replace(/_/g, ' ') || undefined,
        category: 'Application',
        seenAt: seenAt(10),
      });
    }
    for (const [j, [cve, port]] of h.cves.entries()) {
      const input: FindingInput = {
        assetId: asset.id,
        vulnerability: vulnerability(entry(cve)),
        location: { kind: 'Port', port, protocol: 'tcp' },
        evidence: `Detected on ${h.name}:${port}/tcp by the demo scan.`,
        source: DEMO_SOURCE,
        seenAt: seenAt(45 - ((i + j) % 40)),
      };
      const { finding, created } = await services.findings.record(ctx, input);
      findingsByCve.set(cve, [...(findingsByCve.get(cve) ?? []), { id: finding.id, input, created }]);
      findings += 1;
    }
  }
  for (const app of WEB_APPS) {
    const { asset } = await services.assets.observe(ctx, {
      kind: 'WebApplication',
      url: app.url,
      name: app.name,
      internetFacing: true,
      criticality: 4,
      tags: [DEMO_TAG, 'web'],
      source: DEMO_SOURCE,
      seenAt: seenAt(30),
    });
    for (const [cve, name, version] of app.packages) {
      const input: FindingInput = {
        assetId: asset.id,
        vulnerability: vulnerability(entry(cve)),
        location: { kind: 'Package', packageName: name, packageVersion: version },
        source: DEMO_SOURCE,
        seenAt: seenAt(20),
      };
      const { finding, created } = await services.findings.record(ctx, input);
      findingsByCve.set(cve, [...(findingsByCve.get(cve) ?? []), { id: finding.id, input, created }]);
      findings += 1;
    }
  }

  // A programme in motion over the last weeks: fixes (their time to fix is the MTTR), a decision
  // or two, findings fixed and seen again by the next scan (reopened), tickets for the big ones.
  // Each happened a share of the way from the finding's first sighting to now, so trends show a
  // history; only findings this load created get one (loading again adds nothing new).
  const first = (cve: string) => findingsByCve.get(cve)?.[0];
  const between = (f: DemoFinding, share: number) => {
    const seen = (f.input.seenAt ?? now).getTime();
    return new Date(seen + (now.getTime() - seen) * share);
  };
  const decide = async (
    cve: string,
    state: 'Fixed' | 'FalsePositive' | 'RiskAccepted',
    share: number,
    justification?: string,
    until?: Date,
  ) => {
    const f = first(cve);
    if (!f?.created) return;
    const current = await services.findings.get(ctx, f.id);
    if (current.state === state) return;
    if (current.state !== 'Open' && current.state !== 'Reopened') return;
    await services.findings.changeState(
      { ...ctx, role: 'Admin' },
      f.id,
      { state, justification, until },
      { at: between(f, share) },
    );
  };
  await decide('CVE-2021-23017', 'Fixed', 0.5);
  await decide('CVE-2013-2028', 'Fixed', 0.3);
  await decide(
    'CVE-2010-2075',
    'FalsePositive',
    0.1,
    'The IRC daemon on admin-01 is a honeypot build without the backdoor.',
  );
  await decide(
    'CVE-2015-1427',
    'RiskAccepted',
    0.2,
    'Legacy search cluster is isolated and scheduled for decommissioning.',
    new Date(now.getTime() + 60 * DAY),
  );
  for (const [cve, share] of DEMO_FIXES) await decide(cve, 'Fixed', share);
  for (const [cve, fixedAt, seenAgainAt] of DEMO_REOPENED) {
    const f = first(cve);
    if (!f?.created) continue;
    await decide(cve, 'Fixed', fixedAt);
    await services.findings.record(ctx, { ...f.input, seenAt: between(f, seenAgainAt) });
  }

  const existing = await services.tickets.list(ctx, { search: DEMO_TICKET_PREFIX.trim() }, 100);
  const plans: {
    title: string;
    priority: 'Critical' | 'High' | 'Medium';
    cves: string[];
    description: string;
  }[] = [
    {
      title: 'Patch OpenSSH (regreSSHion) everywhere',
      priority: 'Critical',
      cves: ['CVE-2024-6387'],
      description: 'Upgrade OpenSSH to 9.8p1 or later on every host.',
    },
    {
      title: 'Upgrade Apache httpd on the web servers',
      priority: 'High',
      cves: ['CVE-2021-41773', 'CVE-2021-42013', 'CVE-2023-25690'],
      description: 'Move to the current 2.4 release.',
    },
    {
      title: 'Retire Samba 3 and FTP on files-01',
      priority: 'High',
      cves: ['CVE-2007-2447', 'CVE-2017-7494', 'CVE-2011-2523', 'CVE-2015-3306'],
      description: 'Migrate shares to the new file service.',
    },
  ];
  let tickets = 0;
  for (const plan of plans) {
    const title = `${DEMO_TICKET_PREFIX}${plan.title}`;
    if (existing.items.some((t) => t.title === title)) continue;
    await services.tickets.create(ctx, {
      title,
      description: plan.description,
      priority: plan.priority,
      findingIds: plan.cves.flatMap((c) => (findingsByCve.get(c) ?? []).map((f) => f.id)),
    });
    tickets += 1;
  }
  // The back-dated history becomes the organisation's trends: rebuilt by a job.
  await services.history.rebuildLater(ctx.organizationId);
  return { assets: HOSTS.length + WEB_APPS.length, findings, tickets };
}

/** Removes what loadDemo created: demo assets (with their findings) and demo tickets. */
export async function removeDemo(
  services: Services,
  ctx: ServiceContext,
): Promise<{ assets: number; tickets: number }> {
  let tickets = 0;
  const demoTickets = await services.tickets.list(ctx, { search: DEMO_TICKET_PREFIX.trim() }, 500);
  for (const t of demoTickets.items.filter((x) => x.title.startsWith(DEMO_TICKET_PREFIX))) {
    await services.tickets.delete(ctx, t.id);
    tickets += 1;
  }
  let assets = 0;
  for (;;) {
    const page = await services.assets.list(ctx, { tag: DEMO_TAG }, 500);
    const demo = page.items.filter((a) => a.sources.includes(DEMO_SOURCE));
    if (demo.length === 0) break;
    for (const a of demo) {
      await services.assets.delete(ctx, a.id);
      assets += 1;
    }
  }
  return { assets, tickets };
}
