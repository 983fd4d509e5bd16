import type { AssetKind } from '../../db/schema.js';

/** Something the organisation owns that findings are on: a host, a web application, an image… */
export interface Asset {
  id: string;
  organizationId: string;
  kind: AssetKind;
  name: string;
  friendlyName: string | null;
  hostname: string | null;
  fqdn: string | null;
  domainName: string | null;
  ipAddresses: string[];
  macAddresses: string[];
  operatingSystem: string | null;
  url: string | null;
  /** Business criticality, 1–5; the C/I/A ratings are null where not rated. */
  criticality: number;
  confidentiality: number | null;
  integrity: number | null;
  availability: number | null;
  ownerUserId: string | null;
  internetFacing: boolean;
  tags: string[];
  sources: string[];
  firstSeenAt: Date;
  lastSeenAt: Date;
  createdAt: Date;
  updatedAt: Date;
}

/** An asset as the list shows it: with its open (Open or Reopened) findings and their top risk. */
export interface AssetWithFindings extends Asset {
  openFindings: number;
  /** The highest risk score (0–100) of its open findings; null without any. */
  topRisk: number | null;
}

/** An asset with what identifies it (FQDN, addresses, URL, image, repository). */
export interface AssetDetail extends Asset {
  identifiers: { kind: string; value: string }[];
}

/** What a merge may change of an asset (imports count the assets they really update). */
export type AssetFacts = Pick<
  Asset,
  | 'id'
  | 'hostname'
  | 'fqdn'
  | 'domainName'
  | 'operatingSystem'
  | 'ipAddresses'
  | 'macAddresses'
  | 'tags'
  | 'sources'
>;

/** What people change of an asset (PATCH): only the fields given change. */
export interface AssetPatch {
  friendlyName?: string | null;
  criticality?: number;
  confidentiality?: number | null;
  integrity?: number | null;
  availability?: number | null;
  ownerUserId?: string | null;
  internetFacing?: boolean;
  tags?: string[];
  operatingSystem?: string | null;
}

/** A network service (port and protocol) seen on a host. */
export interface HostService {
  id: string;
  port: number;
  protocol: 'tcp' | 'udp';
  name: string | null;
  product: string | null;
  version: string | null;
  cpe: string | null;
  banner: string | null;
  firstSeenAt: Date;
  lastSeenAt: Date;
}
