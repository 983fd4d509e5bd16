/** What identifies and describes installed software, as reports and people give it. */
export interface SoftwareFacts {
  name: string;
  /** '' when the report named none. */
  version: string;
  vendor: string | null;
  /** A SoftwareCategory when written through the service. */
  category: string;
  cpe: string | null;
  purl: string | null;
}

/** Software installed on an asset, with its open findings by severity. */
export interface Software extends SoftwareFacts {
  id: string;
  assetId: string;
  firstSeenAt: Date;
  lastSeenAt: Date;
  /**
   * Open findings in this package on this asset, by severity, as PostgreSQL counts them (bigint,
   * so a decimal string). A finding that names no version counts for every installed version.
   */
  critical: string | null;
  high: string | null;
  medium: string | null;
  low: string | null;
}
