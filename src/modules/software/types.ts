/** Software installed on an asset, with its open findings by severity. */
export interface Software {
  id: string;
  assetId: string;
  name: string;
  /** '' when the report named none. */
  version: string;
  vendor: string | null;
  /** A SoftwareCategory when written through the service. */
  category: string;
  cpe: string | null;
  purl: string | null;
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
