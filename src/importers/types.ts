import type { Readable } from 'node:stream';

/**
 * The common shape every scanner format is read into. A parser turns one report into a stream of
 * records; the import service resolves assets and vulnerabilities, deduplicates and merges them.
 * Parsers know nothing of the database.
 */

export type Severity = 'Critical' | 'High' | 'Medium' | 'Low' | 'Info';

/** What identifies the asset a record is about. At least one identifying field must be set. */
export interface AssetRef {
  kind: 'Host' | 'WebApplication' | 'ContainerImage' | 'CodeRepository';
  /** A display name when the report gives one that is not an identifier (e.g. Nessus's name). */
  name?: string;
  hostname?: string;
  fqdn?: string;
  ipAddresses?: string[];
  macAddresses?: string[];
  operatingSystem?: string;
  /** WebApplication: scheme://host[:port] (path kept when the report scopes to one). */
  url?: string;
  /** ContainerImage: the image reference, e.g. "alpine:3.18" or "registry/app@sha256:…". */
  image?: string;
  /** CodeRepository: the repository URL or the scanned project's name. */
  repository?: string;
}

/** What identifies the weakness: a CVE first, else the tool's rule id; aliases are all kept. */
export interface VulnerabilityRef {
  /** The tool's own id of the check or rule (Nessus plugin id, ZAP plugin id, SARIF ruleId…). */
  ruleId: string;
  /**
   * Whose rule ids these are, when several sources share one catalogue (Rampart's system and web
   * scans share its check catalogue): the vulnerability is keyed by it instead of the import's
   * source, so that every source files the same vulnerability for the same rule id.
   */
  ruleSource?: string;
  title: string;
  cveIds?: string[];
  /** Other ids of the same weakness: GHSA-…, OSV ids, vendor advisories. */
  aliases?: string[];
  description?: string;
  solution?: string;
  cweIds?: string[];
  /** CVSS v2 as v2 writes it (no prefix), e.g. "AV:N/AC:L/Au:N/C:P/I:P/A:P". */
  cvss2Vector?: string;
  cvss2Score?: number;
  /** CVSS v3 with its "CVSS:3.0/" or "CVSS:3.1/" prefix, which says the version. */
  cvss3Vector?: string;
  cvss3Score?: number;
  cvss4Vector?: string;
  cvss4Score?: number;
  references?: string[];
  publishedAt?: string;
}

export interface LocationRef {
  kind: 'None' | 'Port' | 'Url' | 'File' | 'Package';
  port?: number;
  protocol?: 'tcp' | 'udp';
  url?: string;
  parameter?: string;
  filePath?: string;
  line?: number;
  packageName?: string;
  packageVersion?: string;
}

/** A decision the report itself carries (VEX analysis, suppressions). */
export interface StateRef {
  state: 'FalsePositive' | 'RiskAccepted' | 'Fixed';
  reason: string;
}

export interface FindingRecord {
  type: 'finding';
  asset: AssetRef;
  vulnerability: VulnerabilityRef;
  location: LocationRef;
  /** The tool's severity mapped to ours (each format documents its mapping). */
  severity: Severity;
  evidence?: string;
  /** The tool's id of this one result, when it has one. */
  toolFindingId?: string;
  state?: StateRef;
  /** The fixed version or the remedy for this instance, when the tool names one. */
  fixedIn?: string;
}

/** A port seen open on a host (Nmap, Nessus, OpenVAS, masscan). */
export interface ServiceRecord {
  type: 'service';
  asset: AssetRef;
  port: number;
  protocol: 'tcp' | 'udp';
  name?: string;
  product?: string;
  version?: string;
  cpe?: string;
  banner?: string;
}

/** Software found installed (SBOMs, container and dependency scanners). */
export interface SoftwareRecord {
  type: 'software';
  asset: AssetRef;
  name: string;
  version?: string;
  vendor?: string;
  category?: 'OperatingSystem' | 'Application' | 'OsPackage' | 'Library' | 'Firmware' | 'Other';
  cpe?: string;
  purl?: string;
}

/** An asset the report saw with nothing else to say about it (a live host without findings). */
export interface AssetRecord {
  type: 'asset';
  asset: AssetRef;
}

export type ImportRecord = FindingRecord | ServiceRecord | SoftwareRecord | AssetRecord;

/** Limits and a warning channel the import service hands to every parser. */
export interface ParseContext {
  /** Something in the report was skipped or trimmed; the import lists these. */
  warn(message: string): void;
  /** Evidence longer than this is cut (with a marker); default 64 KiB. */
  maxEvidenceChars: number;
  /** Any other text field longer than this is cut; default 32 KiB. */
  maxFieldChars: number;
}

export interface Importer {
  /** The Format value clients pass, e.g. "nessus". Lower case, stable. */
  format: string;
  /** For people: "Nessus v2 (.nessus)". */
  label: string;
  /** The tool's name, recorded as the findings' Source: "Nessus". */
  tool: string;
  /**
   * How sure this format is that a file starting with `head` (the first 64 KiB, as text) is its
   * own: 0 (no) to 1 (certain). Cheap: string and regex checks only.
   */
  detect(head: string): number;
  /** Reads the report as it streams in; memory must not grow with the file. */
  parse(input: Readable, context: ParseContext): AsyncIterable<ImportRecord>;
}
