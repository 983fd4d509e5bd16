// What the intelligence module hands out: feed loads, feed status, what the feeds say about one
// CVE, and what the matcher reads.

export const FEED_NAMES = ['nvd', 'cve5', 'kev', 'epss', 'osv'] as const;
export type FeedName = (typeof FEED_NAMES)[number];

/** What a load did, as GET /intel/loads/{Id} shows it. */
export interface IntelLoad {
  id: string;
  feed: FeedName;
  source: string;
  state: 'Running' | 'Completed' | 'Failed';
  /** The date the file stated, as it stated it. */
  dataDate: string | null;
  added: number;
  updated: number;
  unchanged: number;
  skipped: number;
  warnings: string[];
  error: string | null;
  startedAt: Date;
  finishedAt: Date | null;
}

/** Where the sync of one official source stands (table intel_sync_sources). */
export interface SyncSourceState {
  /** 'nvd', 'kev', 'epss' or 'osv:<Ecosystem>'. */
  source: string;
  /** Everything the source changed before this is loaded (NVD); null until a first full load ends. */
  syncedUntil: Date | null;
  /** The NVD window under way: a full load has no start; null when none is under way. */
  windowStart: Date | null;
  windowEnd: Date | null;
  /** The next page's startIndex within the window under way. */
  nextIndex: number;
  totalResults: number | null;
  lastStartedAt: Date | null;
  lastFinishedAt: Date | null;
  lastSuccessAt: Date | null;
  lastError: string | null;
}

export type SyncSourceProgress = Partial<Omit<SyncSourceState, 'source'>>;

/** Per feed: records held, the last load of any outcome and the last that completed. */
export interface FeedStatus {
  counts: Record<FeedName, number>;
  lastLoads: IntelLoad[];
  lastCompleted: IntelLoad[];
  sync:
    | {
        lastStartedAt: Date | null;
        lastFinishedAt: Date | null;
        lastErrors: { url: string; error: string }[];
      }
    | undefined;
  /** Each official source's sync: progress, last sync, last error. */
  sources: SyncSourceState[];
  /** The dates completed loads stated, each in its feed's own form. */
  statedDates: { feed: FeedName; dataDate: string }[];
  /** The newest record of the feeds whose files may state no date. */
  newestRecords: Record<'nvd' | 'cve5' | 'epss' | 'osv', Date | string | null> | undefined;
}

/** One feed's record of a CVE (NVD or CVE 5), with the CVSS chosen for scoring pulled out. */
export interface CveFeedRecord {
  cveId: string;
  feed: 'nvd' | 'cve5';
  status: string | null;
  rejected: boolean;
  description: string | null;
  publishedAt: Date | null;
  modifiedAt: Date | null;
  cvss: unknown[];
  cvss2Vector: string | null;
  cvss2Score: number | null;
  cvss3Vector: string | null;
  cvss3Score: number | null;
  cvss4Vector: string | null;
  cvss4Score: number | null;
  cweIds: string[];
  referenceUrls: string[];
  configurations: unknown[];
  source: string;
  loadedAt: Date;
}

/** A CVE in CISA's Known Exploited Vulnerabilities catalogue (or as an NVD record states it). */
export interface KevListing {
  cveId: string;
  vendor: string | null;
  product: string | null;
  name: string | null;
  description: string | null;
  dateAdded: string;
  dueDate: string | null;
  requiredAction: string | null;
  knownRansomware: boolean;
  notes: string | null;
  cweIds: string[];
  source: string;
  loadedAt: Date;
}

/** A CVE's EPSS score. */
export interface EpssListing {
  cveId: string;
  score: number;
  percentile: number;
  scoreDate: string | null;
  source: string;
  loadedAt: Date;
}

/** An OSV advisory naming a CVE, as the CVE's intelligence lists it. */
export interface OsvListing {
  id: string;
  summary: string | null;
  modifiedAt: Date;
  packages: string[];
  affected: unknown[];
  source: string;
  loadedAt: Date;
}

/** Everything known about one CVE: each feed's records, NVD's first. */
export interface CveIntel {
  records: CveFeedRecord[];
  kev: KevListing | undefined;
  epss: EpssListing | undefined;
  osv: OsvListing[];
}

/** A CVE's CPE configurations (what the matcher's index is built from). */
export interface CveConfigurationsRecord {
  cveId: string;
  configurations: unknown[];
}

/** An OSV advisory as the package matcher reads it. */
export interface OsvPackageAdvisory {
  id: string;
  aliases: string[];
  /** The upstream CVEs of a distribution's record (osv.dev's DSA-, DEBIAN-CVE-, UBUNTU-CVE-…). */
  upstream: string[];
  /** Related records; a USN's CVEs. */
  related: string[];
  affected: unknown[];
  withdrawnAt: Date | null;
}
