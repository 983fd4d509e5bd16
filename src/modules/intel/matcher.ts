import { CpeMatcher, type CveConfigurations, parseCpe, type TargetInput } from '../../intel/cpe/index.js';
import { packageKey } from '../../intel/osv/package-key.js';
import { type AffectedMatch, affectedBy } from '../../intel/osv/ranges.js';
import type { Configuration, OsvAffected } from '../../intel/types.js';
import type { IntelService } from './service.js';

const PAGE = 5000;

export interface MatchInput {
  Cpes?: string[];
  Products?: { Vendor?: string; Product: string; Version: string }[];
  Packages?: { Ecosystem: string; Name: string; Version: string }[];
}

export interface MatchItem {
  Cve: string | null;
  Advisory: string | null;
  Aliases: string[];
  MatchedBy: string;
  PlatformAssumed: boolean;
}

/**
 * The CVEs that apply to what was detected: CPE matching against every CVE's configurations
 * (an in-memory index, built on first use from the database and rebuilt after a load changes
 * configurations) and OSV ranges for packages (advisories read by package name).
 */
export class IntelMatcher {
  private index: Promise<CpeMatcher> | undefined;

  constructor(private readonly intel: IntelService) {
    intel.onConfigurationsChanged(() => {
      this.index = undefined;
    });
  }

  /** The CPE index, built once and shared until a load changes configurations. */
  cpeIndex(): Promise<CpeMatcher> {
    this.index ??= this.build().catch((error) => {
      this.index = undefined;
      throw error;
    });
    return this.index;
  }

  private async build(): Promise<CpeMatcher> {
    const records: CveConfigurations[] = [];
    let after: string | null = null;
    for (;;) {
      const page = await this.intel.configurationsPage(after, PAGE);
      for (const row of page)
        records.push({ cveId: row.cveId, configurations: row.configurations as Configuration[] });
      if (page.length < PAGE) break;
      after = page[page.length - 1]!.cveId;
    }
    return CpeMatcher.build(records);
  }

  async match(input: MatchInput): Promise<MatchItem[]> {
    const items: MatchItem[] = [];
    const targets: TargetInput[] = [
      ...(input.Cpes ?? []),
      ...(input.Products ?? []).map((p) => ({ vendor: p.Vendor, product: p.Product, version: p.Version })),
    ];
    if (targets.length > 0) {
      const result = (await this.cpeIndex()).match(targets);
      for (const cve of result.cves)
        items.push({
          Cve: cve.cveId,
          Advisory: null,
          Aliases: [],
          MatchedBy: cve.matches.map((m) => describeEntry(m)).join('; '),
          PlatformAssumed: cve.platformAssumed,
        });
    }
    for (const pkg of input.Packages ?? []) items.push(...(await this.matchPackage(pkg)));
    return items;
  }

  private async matchPackage(pkg: {
    Ecosystem: string;
    Name: string;
    Version: string;
  }): Promise<MatchItem[]> {
    const advisories = await this.intel.osvForPackages([packageKey(pkg.Ecosystem, pkg.Name)]);
    const items: MatchItem[] = [];
    for (const advisory of advisories) {
      if (advisory.withdrawnAt) continue;
      const hit = affectedBy(advisory.affected as OsvAffected[], {
        ecosystem: pkg.Ecosystem,
        name: pkg.Name,
        version: pkg.Version,
      });
      if (!hit.affected) continue;
      // A distribution's record names its CVE in upstream (osv.dev's DSA-, DEBIAN-CVE-…).
      const cves = [...advisory.aliases, ...advisory.upstream].filter((a) => a.startsWith('CVE-'));
      items.push({
        Cve: cves[0] ?? null,
        Advisory: advisory.id,
        Aliases: advisory.aliases,
        MatchedBy: describeOsvMatch(pkg, hit.match),
        PlatformAssumed: false,
      });
    }
    return items;
  }

  /** vendor:product of every vulnerable entry of some configurations, for people. */
  affectedProducts(configurations: unknown[]): string[] {
    const products = new Set<string>();
    for (const config of configurations as Configuration[])
      for (const node of config.nodes ?? [])
        for (const entry of node.cpeMatch ?? []) {
          if (!entry.vulnerable) continue;
          const parsed = parseCpe(entry.criteria);
          if (parsed.ok) products.add(`${parsed.cpe.vendor}:${parsed.cpe.product}`);
        }
    return [...products].sort();
  }
}

function describeEntry(m: {
  criteria: string;
  cpe: string;
  versionStartIncluding?: string;
  versionStartExcluding?: string;
  versionEndIncluding?: string;
  versionEndExcluding?: string;
}): string {
  const range = [
    m.versionStartIncluding && `>= ${m.versionStartIncluding}`,
    m.versionStartExcluding && `> ${m.versionStartExcluding}`,
    m.versionEndIncluding && `<= ${m.versionEndIncluding}`,
    m.versionEndExcluding && `< ${m.versionEndExcluding}`,
  ].filter(Boolean);
  return `${m.cpe} matches ${m.criteria}${range.length ? ` (${range.join(', ')})` : ''}`;
}

function describeOsvMatch(
  pkg: { Ecosystem: string; Name: string; Version: string },
  match: AffectedMatch | undefined,
): string {
  const what = `${pkg.Ecosystem} ${pkg.Name}@${pkg.Version}`;
  if (!match || match.via === 'versions') return `${what} is listed as affected`;
  const bounds = [
    match.introduced && `introduced ${match.introduced}`,
    match.fixed && `fixed ${match.fixed}`,
    match.lastAffected && `last affected ${match.lastAffected}`,
  ].filter(Boolean);
  return `${what} is in the ${match.rangeType ?? ''} range ${bounds.join(', ')}`.replace('  ', ' ');
}
