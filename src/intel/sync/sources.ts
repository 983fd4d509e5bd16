/**
 * The official sources of vulnerability intelligence the scheduled sync reads by default, and
 * the OSV ecosystems Rampart matches. Each base can be replaced by a mirror (src/config.ts).
 */

export const DEFAULT_NVD_URL = 'https://services.nvd.nist.gov/rest/json/cves/2.0';
export const DEFAULT_KEV_URL =
  'https://www.cisa.gov/sites/default/files/feeds/known_exploited_vulnerabilities.json';
export const DEFAULT_EPSS_URL = 'https://epss.empiricalsecurity.com/epss_scores-current.csv.gz';
export const DEFAULT_OSV_URL = 'https://osv-vulnerabilities.storage.googleapis.com';

/**
 * The ecosystems whose packages Rampart matches against OSV (src/intel/osv/package-key.ts): the
 * distributions (decided in dpkg order for Debian and Ubuntu) and the language registries.
 */
export const DEFAULT_OSV_ECOSYSTEMS = [
  'Debian',
  'Ubuntu',
  'Alpine',
  'npm',
  'PyPI',
  'Maven',
  'Go',
  'crates.io',
  'NuGet',
  'RubyGems',
  'Packagist',
] as const;

/** The official sources and their addresses (each may be a mirror). */
export interface OfficialSources {
  nvd: { url: string; apiKey?: string | undefined; resultsPerPage?: number | undefined };
  kev: string;
  epss: string;
  osv: { url: string; ecosystems: string[] };
}

/** Where one ecosystem's advisories are, as osv.dev's bucket lays them out: <base>/<Ecosystem>/all.zip. */
export function osvZipUrl(base: string, ecosystem: string): string {
  return `${base.replace(/\/+$/, '')}/${encodeURIComponent(ecosystem)}/all.zip`;
}

/** Each source the sync reads, named as its progress is kept ('osv:<Ecosystem>' per ecosystem), in order. */
export function sourceList(sources: OfficialSources | undefined): { source: string; url: string }[] {
  if (!sources) return [];
  return [
    { source: 'kev', url: sources.kev },
    { source: 'epss', url: sources.epss },
    { source: 'nvd', url: sources.nvd.url },
    ...sources.osv.ecosystems.map((e) => ({ source: `osv:${e}`, url: osvZipUrl(sources.osv.url, e) })),
  ];
}
