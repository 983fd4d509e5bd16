import type { Severity } from '../../db/schema.js';
import type { AssetRef, FindingRecord, ImportRecord, VulnerabilityRef } from '../../importers/types.js';
import { type JsonArrayOf, JsonRows } from '../../lib/json-rows.js';
import { keepValidIdentifiers } from '../assets/identity.js';
import type { AssetInput, StagedService } from '../assets/service.js';
import { EVIDENCE_CAP, locationKey, type StagedFinding } from '../findings/service.js';
import type { StagedSoftware } from '../software/service.js';
import { type StagedVulnerability, vulnerabilityKey } from '../vulnerabilities/service.js';

/** Records a batch holds before it is staged: one statement per owner and batch. */
export const BATCH = 1000;
const MAX_WARNINGS = 100;
/** The longest text field kept of a report (the parsers cut there too). */
export const TEXT_CAP = 32_768;
const CVE = /^CVE-\d{4}-\d{4,}$/;
const SEVERITIES: readonly Severity[] = ['Critical', 'High', 'Medium', 'Low', 'Info'];

/** One batch of a report's records, as each owning module stages them. */
export interface StagedBatch {
  assets: { key: string; input: AssetInput }[];
  vulnerabilities: JsonArrayOf<StagedVulnerability>;
  findings: JsonArrayOf<StagedFinding>;
  services: StagedService[];
  software: StagedSoftware[];
}

/** What the Import records of its staging: its counts and warnings. */
export interface StagingCounts {
  records: number;
  skipped: number;
  findings: number;
  warnings: string[];
}

/**
 * What a report's records become before they are staged: checked, capped, deduplicated and
 * collected into batches, with the warnings and counts the Import reports. Pure: the same on the
 * parser thread (parse-worker.ts) as beside the database (records that are no report's).
 */
export class ReportStaging {
  readonly warnings: string[] = [];
  private warned = 0;
  private seq = 0;
  private assets = new Map<string, unknown>();
  private vulnerabilities = new Set<string>();
  private pending = {
    assets: [] as { key: string; input: AssetInput }[],
    // Serialised as they come (lib/json-rows.ts): they are the bulk of an import's records.
    vulnerabilities: new JsonRows<StagedVulnerability>(),
    findings: new JsonRows<StagedFinding>(),
    services: [] as StagedService[],
    software: [] as StagedSoftware[],
  };
  records = 0;
  skipped = 0;
  findings = 0;

  /** `checkAsset` throws, saying why, for an asset that cannot be stored (AssetService.prepare). */
  constructor(
    private readonly source: string,
    private readonly checkAsset: (input: AssetInput) => unknown,
  ) {}

  warn = (message: string) => {
    this.warned += 1;
    if (this.warnings.length < MAX_WARNINGS) this.warnings.push(message.slice(0, 500));
    else if (this.warned === MAX_WARNINGS + 1) this.warnings.push('More warnings were left out.');
  };

  add(record: ImportRecord): void {
    this.records += 1;
    const assetKey = this.asset(record.asset);
    if (!assetKey) {
      this.skipped += 1;
      return;
    }
    if (record.type === 'finding') this.finding(record, assetKey);
    else if (record.type === 'service') this.service(record, assetKey);
    else if (record.type === 'software') this.software(record, assetKey);
  }

  /** Whether a batch is due: BATCH records wait. */
  full(): boolean {
    return this.size() >= BATCH;
  }

  /** What waits, as one batch for the modules that stage it; nothing waits afterwards. */
  take(): StagedBatch {
    const p = this.pending;
    return {
      assets: p.assets.splice(0),
      vulnerabilities: p.vulnerabilities.take(),
      findings: p.findings.take(),
      services: dedupe(p.services.splice(0), (s) => `${s.assetKey}|${s.port}|${s.protocol}`),
      software: dedupe(p.software.splice(0), (s) => `${s.assetKey}|${s.name.toLowerCase()}|${s.version}`),
    };
  }

  private size(): number {
    const p = this.pending;
    return p.findings.length + p.services.length + p.software.length + p.assets.length;
  }

  // The staged asset's key: what identifies it in the report. Two spellings of one host resolve
  // to one asset when the merge matches their identifiers.
  private asset(ref: AssetRef): string | undefined {
    const input: AssetInput = {
      kind: ref.kind,
      name: ref.name?.slice(0, 255),
      hostname: ref.hostname,
      fqdn: ref.fqdn,
      ipAddresses: ref.ipAddresses,
      macAddresses: ref.macAddresses,
      operatingSystem: ref.operatingSystem,
      url: ref.url,
      image: ref.image,
      repository: ref.repository,
      source: this.source,
    };
    const key = JSON.stringify([
      ref.kind,
      [...(ref.ipAddresses ?? [])].sort(),
      ref.fqdn?.toLowerCase(),
      ref.hostname?.toLowerCase(),
      [...(ref.macAddresses ?? [])].sort(),
      ref.url,
      ref.image,
      ref.repository,
      ref.operatingSystem,
      ref.name,
    ]);
    if (this.assets.has(key)) return this.assets.get(key) === null ? undefined : key;
    // An identifier that is not valid is left out, not the asset: its other identifiers name it.
    const { identity, dropped } = keepValidIdentifiers(input);
    const label = assetLabel(ref);
    const reasons = dropped.map((d) => `${d.field} '${d.value}' ${d.reason}`);
    try {
      this.checkAsset(identity);
    } catch (error) {
      const why = [...reasons, (error as Error).message].join('; ');
      this.warn(`${label} was skipped with everything reported on it: ${why}`);
      this.assets.set(key, null);
      return undefined;
    }
    for (const reason of reasons)
      this.warn(
        `${label}: ${reason} and was left out; the ${KIND_NOUNS[ref.kind]} is known by its other identifiers.`,
      );
    this.assets.set(key, identity);
    this.pending.assets.push({ key, input: identity });
    return key;
  }

  private vulnerability(ref: VulnerabilityRef, severity: Severity): string {
    const cveIds = [...new Set((ref.cveIds ?? []).map((c) => c.trim().toUpperCase()))]
      .filter((c) => CVE.test(c))
      .sort();
    const title = (ref.title.trim() || ref.ruleId).slice(0, 500);
    const key = vulnerabilityKey({ source: this.source, ruleId: ref.ruleId, title, cveIds });
    if (this.vulnerabilities.has(key)) return key;
    this.vulnerabilities.add(key);
    const score = (n: number | undefined) =>
      n !== undefined && Number.isFinite(n) && n >= 0 && n <= 10 ? Math.round(n * 10) / 10 : undefined;
    const published =
      ref.publishedAt && !Number.isNaN(Date.parse(ref.publishedAt)) ? ref.publishedAt : undefined;
    this.pending.vulnerabilities.add({
      key,
      input: {
        ruleId: ref.ruleId.slice(0, 255),
        cveIds,
        aliases: [...new Set([...(ref.aliases ?? []), ref.ruleId])].map((a) => a.slice(0, 255)).slice(0, 100),
        title,
        description: ref.description?.slice(0, TEXT_CAP),
        solution: ref.solution?.slice(0, TEXT_CAP),
        cweIds: [...new Set(ref.cweIds ?? [])].slice(0, 50),
        severity,
        cvss3Vector: ref.cvss3Vector?.slice(0, 200),
        cvss3Score: score(ref.cvss3Score),
        cvss4Vector: ref.cvss4Vector?.slice(0, 300),
        cvss4Score: score(ref.cvss4Score),
        references: (ref.references ?? []).map((r) => r.slice(0, 2048)).slice(0, 100),
        publishedAt: published,
      },
    });
    return key;
  }

  private finding(r: FindingRecord, assetKey: string): void {
    const l = r.location;
    const problem = !SEVERITIES.includes(r.severity)
      ? `severity '${r.severity}' is not one of ${SEVERITIES.join(', ')}`
      : l.kind === 'Port' &&
          (l.port === undefined || !Number.isInteger(l.port) || l.port < 0 || l.port > 65535)
        ? `port ${l.port} is not 0–65535`
        : l.kind === 'Url' && !l.url
          ? 'a URL location without a URL'
          : l.kind === 'File' && !l.filePath
            ? 'a file location without a file'
            : l.kind === 'Package' && !l.packageName
              ? 'a package location without a package'
              : !r.vulnerability.ruleId && !r.vulnerability.title
                ? 'no rule id and no title'
                : undefined;
    if (problem) {
      this.skipped += 1;
      this.warn(`A finding was skipped: ${problem} (${r.vulnerability.title || r.vulnerability.ruleId}).`);
      return;
    }
    const vulnerabilityKeyOf = this.vulnerability(r.vulnerability, r.severity);
    const location = {
      kind: l.kind,
      port: l.port,
      protocol: l.protocol,
      url: l.url?.slice(0, 2048),
      parameter: l.parameter?.slice(0, 255),
      filePath: l.filePath?.slice(0, 1024),
      line: l.line !== undefined && Number.isInteger(l.line) && l.line >= 0 ? l.line : undefined,
      packageName: l.packageName?.slice(0, 255),
      packageVersion: l.packageVersion?.slice(0, 255),
    };
    this.findings += 1;
    this.pending.findings.add({
      seq: this.seq++,
      assetKey,
      vulnerabilityKey: vulnerabilityKeyOf,
      locationKey: locationKey(location),
      locationKind: location.kind,
      port: location.kind === 'Port' ? (location.port ?? null) : null,
      protocol: location.kind === 'Port' ? (location.protocol ?? 'tcp') : null,
      url: location.url ?? null,
      parameter: location.parameter ?? null,
      filePath: location.filePath ?? null,
      line: location.line ?? null,
      packageName: location.packageName ?? null,
      packageVersion: location.packageVersion ?? null,
      title: (r.vulnerability.title.trim() || r.vulnerability.ruleId).slice(0, 500),
      severity: r.severity,
      evidence: r.evidence ? r.evidence.slice(0, EVIDENCE_CAP) : null,
      toolFindingId: r.toolFindingId?.slice(0, 255) ?? null,
      state: r.state?.state ?? null,
      stateReason: r.state ? r.state.reason.slice(0, 4000) : null,
    });
  }

  private service(r: Extract<ImportRecord, { type: 'service' }>, assetKey: string): void {
    if (
      !Number.isInteger(r.port) ||
      r.port < 0 ||
      r.port > 65535 ||
      (r.protocol !== 'tcp' && r.protocol !== 'udp')
    ) {
      this.skipped += 1;
      this.warn(`A service was skipped: ${r.port}/${r.protocol} is not a port and protocol.`);
      return;
    }
    const cpe = r.cpe && /^cpe:(2\.3:|\/)[aho]/.test(r.cpe) ? r.cpe.slice(0, 500) : null;
    this.pending.services.push({
      assetKey,
      port: r.port,
      protocol: r.protocol,
      name: r.name?.slice(0, 100) ?? null,
      product: r.product?.slice(0, 255) ?? null,
      version: r.version?.slice(0, 100) ?? null,
      cpe,
      banner: r.banner?.slice(0, 2048) ?? null,
    });
  }

  private software(r: Extract<ImportRecord, { type: 'software' }>, assetKey: string): void {
    const name = r.name.trim().slice(0, 255);
    if (!name) {
      this.skipped += 1;
      return;
    }
    this.pending.software.push({
      assetKey,
      name,
      version: r.version?.trim().slice(0, 100) ?? '',
      vendor: r.vendor?.slice(0, 255) || null,
      category: r.category ?? 'Application',
      cpe: r.cpe && /^cpe:(2\.3:|\/)[aho]/.test(r.cpe) ? r.cpe.slice(0, 500) : null,
      purl: r.purl?.startsWith('pkg:') ? r.purl.slice(0, 1000) : null,
    });
  }
}

const KIND_NOUNS: Record<AssetRef['kind'], string> = {
  Host: 'host',
  WebApplication: 'web application',
  ContainerImage: 'container image',
  CodeRepository: 'code repository',
};

/** "Host 'qa3app01'": an asset as a warning names it, by what the report calls it. */
function assetLabel(ref: AssetRef): string {
  const name =
    ref.name ??
    ref.fqdn ??
    ref.hostname ??
    ref.ipAddresses?.[0] ??
    ref.macAddresses?.[0] ??
    ref.url ??
    ref.image ??
    ref.repository;
  const noun = KIND_NOUNS[ref.kind] ?? 'asset';
  const capital = noun.charAt(0).toUpperCase() + noun.slice(1);
  return name === undefined ? `A ${noun}` : `${capital} '${name.slice(0, 200)}'`;
}

// One statement may not touch the same row twice (ON CONFLICT DO UPDATE): last one wins.
function dedupe<T>(rows: T[], key: (row: T) => string): T[] {
  return [...new Map(rows.map((r) => [key(r), r])).values()];
}
