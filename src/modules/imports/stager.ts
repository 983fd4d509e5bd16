import type { Severity } from '../../db/schema.js';
import type { AssetRef, FindingRecord, ImportRecord, VulnerabilityRef } from '../../importers/types.js';
import { type JsonArrayOf, JsonRows } from '../../lib/json-rows.js';
import { keepValidIdentifiers } from '../assets/identity.js';
import type { AssetInput, AssetService, StagedService } from '../assets/service.js';
import type { FindingCopyStaging } from '../findings/copy-staging.js';
import { EVIDENCE_CAP, type FindingService, locationKey } from '../findings/service.js';
import type { SoftwareService, StagedSoftware } from '../software/service.js';
import {
  type StagedVulnerability,
  type VulnerabilityService,
  vulnerabilityKey,
} from '../vulnerabilities/service.js';

// Records a staging batch holds (assets, vulnerabilities, services, software; findings stream
// through COPY instead): its JSON stays under V8's large-object size, and the rows it waits with
// die young. At 1,000 each batch was a large object that only a full collection frees, and the
// rows reached the old generation: the Nessus steps of bench:import peaked at 176–249 MB of heap
// against 96–123 MB at 200.
const BATCH = 200;
const MAX_WARNINGS = 100;
/** The longest text an import keeps in one field (a description, a solution), in characters. */
export const TEXT_CAP = 32_768;
const CVE = /^CVE-\d{4}-\d{4,}$/;
const SEVERITIES: readonly Severity[] = ['Critical', 'High', 'Medium', 'Low', 'Info'];

/** The modules that own what an import writes: each stages, merges and clears its own rows. */
export interface ImportOwners {
  assets: AssetService;
  vulnerabilities: VulnerabilityService;
  findings: FindingService;
  software: SoftwareService;
}

/** Collected while a report is parsed and staged. */
export class Stager {
  readonly warnings: string[] = [];
  private warned = 0;
  private seq = 0;
  /**
   * Whether each asset (by key) was staged or skipped, and the vulnerabilities staged, for the
   * whole import: only flat strings and booleans. A string the parser cut from its input (an
   * asset's name, a CVE id) can be a slice that keeps the whole chunk of the report it came from
   * alive: the assets of a 2,000-host Nessus report kept 45 MB of it (ownText).
   */
  private assets = new Map<string, boolean>();
  private vulnerabilities = new Set<string>();
  // The batch being written while the report is read on.
  private writing: Promise<void> = Promise.resolve();
  private pending = {
    assets: [] as { key: string; input: AssetInput }[],
    // Serialised as they come (lib/json-rows.ts): they are the bulk of an import's records.
    vulnerabilities: new JsonRows<StagedVulnerability>(),
    services: [] as StagedService[],
    software: [] as StagedSoftware[],
  };
  // Findings are not batched: each streams into its staging (COPY) as it is read.
  private staging: Promise<FindingCopyStaging> | undefined;
  records = 0;
  skipped = 0;
  /** Findings staged as Unconfirmed (an import.needs_attention reason). */
  unconfirmed = 0;
  findings = 0;

  constructor(
    private readonly owners: ImportOwners,
    private readonly organizationId: string,
    private readonly importId: string,
    private readonly source: string,
  ) {}

  warn = (message: string) => {
    this.warned += 1;
    if (this.warnings.length < MAX_WARNINGS) this.warnings.push(message.slice(0, 500));
    else if (this.warned === MAX_WARNINGS + 1) this.warnings.push('More warnings were left out.');
  };

  async add(record: ImportRecord): Promise<void> {
    this.records += 1;
    const assetKey = this.asset(record.asset);
    if (!assetKey) {
      this.skipped += 1;
      return;
    }
    if (record.type === 'finding') await this.finding(record, assetKey);
    else if (record.type === 'service') this.service(record, assetKey);
    else if (record.type === 'software') this.software(record, assetKey);
    if (this.size() >= BATCH) await this.startWriting();
  }

  private size(): number {
    const p = this.pending;
    return p.vulnerabilities.length + p.services.length + p.software.length + p.assets.length;
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
    const staged = this.assets.get(key);
    if (staged !== undefined) return staged ? key : undefined;
    // An identifier that is not valid is left out, not the asset: its other identifiers name it.
    const { identity, dropped } = keepValidIdentifiers(input);
    const label = assetLabel(ref);
    const reasons = dropped.map((d) => `${d.field} '${d.value}' ${d.reason}`);
    try {
      this.owners.assets.prepare(identity);
    } catch (error) {
      const why = [...reasons, (error as Error).message].join('; ');
      this.warn(`${label} was skipped with everything reported on it: ${why}`);
      this.assets.set(key, false);
      return undefined;
    }
    for (const reason of reasons)
      this.warn(
        `${label}: ${reason} and was left out; the ${KIND_NOUNS[ref.kind]} is known by its other identifiers.`,
      );
    this.assets.set(key, true);
    this.pending.assets.push({ key, input: identity });
    return key;
  }

  private vulnerability(ref: VulnerabilityRef, severity: Severity): string {
    const cveIds = [...new Set((ref.cveIds ?? []).map((c) => c.trim().toUpperCase()))]
      .filter((c) => CVE.test(c))
      .sort();
    const title = (ref.title.trim() || ref.ruleId).slice(0, 500);
    const key = vulnerabilityKey({
      source: ref.ruleSource ?? this.source,
      ruleId: ref.ruleId,
      title,
      cveIds,
    });
    if (this.vulnerabilities.has(key)) return key;
    this.vulnerabilities.add(ownText(key));
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
        cvss2Vector: ref.cvss2Vector?.slice(0, 200),
        cvss2Score: score(ref.cvss2Score),
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

  private async finding(r: FindingRecord, assetKey: string): Promise<void> {
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
    this.staging ??= this.owners.findings.openImportStaging(this.organizationId, this.importId);
    await (await this.staging).add({
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
      confidence: r.confidence === 'Unconfirmed' ? 'Unconfirmed' : null,
    });
    if (r.confidence === 'Unconfirmed') this.unconfirmed += 1;
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

  /**
   * Writes what is pending through the modules that own it, in short statements, and waits until
   * everything is written; the findings' COPY ends and its rows move into import_findings.
   */
  async flush(): Promise<void> {
    await this.startWriting();
    await this.writing;
    await (await this.staging)?.finish();
  }

  /**
   * Waits for the batch being written, whether it was written or not, and abandons the findings'
   * COPY (before the import's staging is cleared).
   */
  async settle(): Promise<void> {
    await this.writing.catch(() => {});
    const staging = await this.staging?.catch(() => undefined);
    await staging?.abort();
  }

  /**
   * Takes what is pending and starts writing it once the batch before it is written (its failure
   * is thrown here): the report is read on while the database writes, one batch ahead at most.
   */
  private async startWriting(): Promise<void> {
    await this.writing;
    const p = this.pending;
    const batch = {
      assets: p.assets.splice(0),
      vulnerabilities: p.vulnerabilities.take(),
      services: dedupe(p.services.splice(0), (s) => `${s.assetKey}|${s.port}|${s.protocol}`),
      software: dedupe(p.software.splice(0), (s) => `${s.assetKey}|${s.name.toLowerCase()}|${s.version}`),
    };
    this.writing = this.write(batch);
    // Thrown where it is awaited next (the next batch, the last flush, or settle).
    this.writing.catch(() => {});
  }

  private async write(batch: {
    assets: { key: string; input: AssetInput }[];
    vulnerabilities: JsonArrayOf<StagedVulnerability>;
    services: StagedService[];
    software: StagedSoftware[];
  }): Promise<void> {
    const { assets, vulnerabilities, software } = this.owners;
    const [org, id] = [this.organizationId, this.importId];
    await assets.stageFromImport(org, id, batch.assets);
    await vulnerabilities.stageFromImport(org, id, batch.vulnerabilities);
    await assets.stageServicesFromImport(org, id, batch.services);
    await software.stageFromImport(org, id, batch.software);
  }
}

/**
 * `text` as a string of its own: V8 may make a part of a string (a regular expression's match, a
 * slice) point into the string it was cut from, which then lives as long as the part does.
 */
function ownText(text: string): string {
  return Buffer.from(text, 'utf8').toString('utf8');
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
