/**
 * Public vulnerability intelligence as Rampart keeps it, whatever feed it came from. Feed
 * readers (src/intel/feeds/*) turn NVD, CVE JSON 5, CISA KEV, EPSS and OSV files into these
 * records; the intel module stores them; the matcher (src/intel/cpe) reads configurations.
 * Nothing here knows the database.
 */

export type CvssVersion = '2.0' | '3.0' | '3.1' | '4.0';

/** One CVSS assessment as a feed states it (NVD lists several: Primary from NVD, Secondary from CNAs). */
export interface CvssMetric {
  version: CvssVersion;
  vector: string;
  /** The base score the feed states; the loader checks it against the library's score. */
  baseScore: number;
  /** Who scored it: "nvd@nist.gov", a CNA's id, "ADP:CISA-ADP"… */
  source?: string;
  type?: 'Primary' | 'Secondary';
}

/** An NVD `cpeMatch` entry: a CPE 2.3 criteria string, optionally with a version range. */
export interface CpeMatch {
  criteria: string;
  vulnerable: boolean;
  versionStartIncluding?: string;
  versionStartExcluding?: string;
  versionEndIncluding?: string;
  versionEndExcluding?: string;
  matchCriteriaId?: string;
}

/** A node: its entries joined by `operator`, the result inverted when `negate`. */
export interface ConfigNode {
  operator: 'AND' | 'OR';
  negate?: boolean;
  cpeMatch: CpeMatch[];
}

/**
 * One NVD configuration: its nodes joined by `operator` (default OR). An AND of a vulnerable
 * node and a node of `vulnerable: false` entries is a "running on/with" pair: the application
 * is vulnerable only on those platforms.
 */
export interface Configuration {
  operator?: 'AND' | 'OR';
  negate?: boolean;
  nodes: ConfigNode[];
}

/** A CVE with what the feeds say about it. */
export interface CveRecord {
  id: string;
  /** Which feed said it: NVD API 2.0 or a CVE JSON 5 record. */
  feed: 'nvd' | 'cve5';
  /** NVD's vulnStatus ("Analyzed", "Modified", "Rejected"…) or CVE 5 state ("PUBLISHED", "REJECTED"). */
  status?: string;
  rejected: boolean;
  publishedAt?: string;
  modifiedAt?: string;
  /** English description. */
  description?: string;
  cvss: CvssMetric[];
  cweIds: string[];
  references: string[];
  configurations: Configuration[];
  /** CISA's KEV fields when the NVD record carries them (cisaExploitAdd…). */
  kev?: Pick<KevEntry, 'dateAdded' | 'dueDate' | 'requiredAction' | 'name'>;
  /** CISA's SSVC decision points (NVD `ssvcV203`, the CVE 5 "CISA ADP Vulnrichment" container). */
  ssvc?: SsvcDecision;
  /** Tags the CVE carries: "disputed", "unsupported-when-assigned", "exclusively-hosted-service"… */
  tags?: string[];
}

/** CISA's Stakeholder-Specific Vulnerability Categorization of a CVE, values in lower case. */
export interface SsvcDecision {
  /** "none", "poc" or "active". */
  exploitation?: string;
  /** "yes" or "no". */
  automatable?: string;
  /** "partial" or "total". */
  technicalImpact?: string;
  /** When CISA made the assessment. */
  timestamp?: string;
}

/** One entry of the CISA Known Exploited Vulnerabilities catalogue. */
export interface KevEntry {
  cveId: string;
  vendor: string;
  product: string;
  name: string;
  description?: string;
  /** YYYY-MM-DD */
  dateAdded: string;
  /** YYYY-MM-DD: the date by which US federal agencies must remediate. */
  dueDate: string;
  requiredAction?: string;
  knownRansomwareUse: boolean;
  notes?: string;
  cweIds: string[];
}

/** An EPSS score: the probability of exploitation activity in the next 30 days, and its percentile. */
export interface EpssScore {
  cveId: string;
  score: number;
  percentile: number;
  /** YYYY-MM-DD, from the file's `#model_version…,score_date:` comment when present. */
  scoreDate?: string;
}

/** An OSV range event, as the schema has it. */
export interface OsvEvent {
  introduced?: string;
  fixed?: string;
  last_affected?: string;
  limit?: string;
}

export interface OsvRange {
  type: 'SEMVER' | 'ECOSYSTEM' | 'GIT';
  events: OsvEvent[];
  /** The repository a GIT range's commits belong to. */
  repo?: string;
}

export interface OsvAffected {
  ecosystem: string;
  name: string;
  purl?: string;
  ranges: OsvRange[];
  /** Versions listed explicitly as affected. */
  versions: string[];
}

/** An OSV advisory (GHSA, PYSEC, …). */
export interface OsvAdvisory {
  id: string;
  aliases: string[];
  /**
   * The upstream vulnerabilities a distribution's record is about (osv.dev's Debian `DSA-…`,
   * `DLA-…`, `DEBIAN-CVE-…` and Ubuntu `UBUNTU-CVE-…` records name their CVE here, not in aliases).
   */
  upstream?: string[];
  /** Records about something related; Ubuntu's USN records name the CVEs they fix here. */
  related?: string[];
  summary?: string;
  details?: string;
  publishedAt?: string;
  modifiedAt: string;
  withdrawnAt?: string;
  cvss: CvssMetric[];
  /** The database's own severity word (GHSA "HIGH"…), when given. */
  severity?: string;
  cweIds: string[];
  references: string[];
  affected: OsvAffected[];
}
