import { createHash } from 'node:crypto';
import type { AssetRef, ImportRecord, Severity, VulnerabilityRef } from '../../importers/types.js';
import { cvssSeverity, rankingCvss } from '../../intel/cvss/cvss.js';
import {
  type BackportDecision,
  type DistroAdvisory,
  decideBackports,
  holdsRelease,
} from '../../intel/distro/backports.js';
import { type DistroBuild, parseDistroBanner } from '../../intel/distro/banners.js';
import { packageKey } from '../../intel/osv/package-key.js';
import { CHECK_RULE_SOURCE, checkById, isTlsCheck, TLS_CHECK_IDS } from '../../scanning/checks/index.js';
import type {
  CheckResult,
  ScannedService,
  SystemHostResult,
  WebSoftware,
  WebUrlResult,
} from '../../scanning/types.js';
import type { ServiceContext } from '../context.js';
import type { ScanLocation } from '../findings/types.js';
import type { RecordsIngest } from '../imports/service.js';
import type { ImportCounts } from '../imports/types.js';
import type { MatchInput, MatchItem } from '../intel/matcher.js';
import type { CveIntel, OsvPackageAdvisory } from '../intel/types.js';

// What this module asks of the modules it works with, by the little it uses of each.

/** The imports module: records merged like a report's, recorded as an Import. */
export interface ResultsImports {
  ingestRecords(
    ctx: ServiceContext,
    input: RecordsIngest,
  ): Promise<{ importId: string; counts: ImportCounts }>;
}

/** The intelligence: CVEs of CPEs, a CVE's records, a distribution's OSV records of a package. */
export interface ResultsIntel {
  match(input: MatchInput): Promise<MatchItem[]>;
  cve(cveId: string): Promise<CveIntel | null>;
  osvForPackages(keys: string[]): Promise<OsvPackageAdvisory[]>;
}

/** The findings module: where the findings of scans are (to judge where a scan looked). */
export interface ResultsFindings {
  scanLocations(
    organizationId: string,
    q: {
      scopeName?: string;
      scopePrefix?: string;
      addresses?: string[];
      ids?: string[];
      states?: ('Open' | 'Reopened')[];
      pluginIds?: string[];
    },
  ): Promise<ScanLocation[]>;
}

export const SYSTEM_SCAN_SOURCE = 'Rampart system scan';
export const WEB_SCAN_SOURCE = 'Rampart web scan';
export const SYSTEM_SCAN_FORMAT = 'rampart-system-scan';
export const WEB_SCAN_FORMAT = 'rampart-web-scan';

/** The scope of a system scan's findings: the scan that last reported them. */
export const systemScanScope = (scanId: string) => `system-scan:${scanId}`;
export const webScanScope = (scanId: string) => `web-scan:${scanId}`;
/** Every system (web) scan's scope starts so: any of them may close what another found. */
const SYSTEM_SCOPES = 'system-scan:';
const WEB_SCOPES = 'web-scan:';

/** A Rampart scan's scope read back: which scan found a finding. */
export function scanOfScope(scope: string | null): { kind: 'System' | 'Web'; scanId: string } | null {
  const m = /^(system|web)-scan:([0-9a-f-]{36})$/i.exec(scope ?? '');
  if (!m) return null;
  return { kind: m[1]!.toLowerCase() === 'system' ? 'System' : 'Web', scanId: m[2]!.toLowerCase() };
}

/** A distribution's decision about an upstream CVE match on one service, kept with the run. */
export interface BackportNote {
  address: string;
  port: number | null;
  url: string | null;
  banner: string;
  cveId: string;
  /** Unconfirmed: the banner names a build but Rampart holds no advisory data to decide it. */
  status: 'Fixed' | 'Affected' | 'BannerOnly' | 'Unconfirmed';
  evidence: string;
}

export interface IngestResult {
  importId: string;
  counts: ImportCounts;
  /** Upstream CVE matches the distribution's records decided (Fixed ones made no finding). */
  backports: BackportNote[];
}

export interface SystemIngest {
  scanId: string;
  scanName: string;
  /** Also the Import's id: ingesting the same run again answers the same Import. */
  runId: string;
  hosts: SystemHostResult[];
  /** A Verify run: only these findings may become Fixed. */
  verify?: { findingIds: string[] } | null;
  /**
   * Whether the run probed a port (its template's or Verify's port list); null when not known,
   * then only the hosts' unscannedPorts say what was left out.
   */
  portScanned?: ((port: number) => boolean) | null;
  /** Runs last in the merge's transaction with the services new to their assets (the scan's event). */
  onMerged?: RecordsIngest['onMerged'];
}

export interface WebIngest {
  scanId: string;
  scanName: string;
  runId: string;
  urls: WebUrlResult[];
  verify?: { findingIds: string[] } | null;
}

const OPEN: ('Open' | 'Reopened')[] = ['Open', 'Reopened'];

/**
 * Findings from Rampart's own scans: a run's results become records (hosts, services, findings
 * of checks and of CVEs matched from the services' CPEs, less what the distribution fixed) and go
 * through the imports module like a report, in the scan's scope. A run is evidence wherever it
 * looked to the end: the open findings there that it no longer reports become Fixed, whichever
 * saved scan (system scan, scan group's scan, Verify run) reported them last. An interrupted or
 * budget-exhausted examination is no evidence.
 */
export class ScanResultsService {
  constructor(
    private readonly imports: ResultsImports,
    private readonly intel: ResultsIntel,
    private readonly findings: ResultsFindings,
  ) {}

  /** A system run's hosts → services on assets, findings (CVE matches + checks), in the scan's scope. */
  async ingestSystem(ctx: ServiceContext, input: SystemIngest): Promise<IngestResult> {
    const scope = systemScanScope(input.scanId);
    const records: ImportRecord[] = [];
    const backports: BackportNote[] = [];
    const distro = new DistroRecords(this.intel);
    // A host that did not answer is not an asset, is not seen, and says nothing of its findings.
    for (const host of input.hosts.filter(answered)) {
      const asset = hostRef(host);
      records.push({ type: 'asset', asset });
      for (const s of host.services) {
        records.push({
          type: 'service',
          asset,
          port: s.port,
          protocol: 'tcp',
          ...(s.service ? { name: s.service } : {}),
          ...(s.product ? { product: s.product } : {}),
          ...(s.version ? { version: s.version } : {}),
          ...(s.cpes[0] ? { cpe: s.cpes[0] } : {}),
          ...(s.banner ? { banner: s.banner } : {}),
        });
        const matched = await this.cveFindings(s.cpes, s.banner, describeService(s), distro);
        for (const m of matched.findings)
          records.push({ ...m, asset, location: { kind: 'Port', port: s.port, protocol: 'tcp' } });
        for (const n of matched.notes)
          backports.push({ ...n, address: host.address, port: s.port, url: null });
      }
      for (const c of host.checks) {
        const finding = checkFinding(c);
        if (!finding) continue;
        records.push({
          ...finding,
          asset,
          location: c.port === null ? { kind: 'None' } : { kind: 'Port', port: c.port, protocol: 'tcp' },
        });
      }
    }
    const fixOnly = await this.fixableSystem(ctx.organizationId, scope, input);
    const result = await this.imports.ingestRecords(ctx, {
      importId: input.runId,
      source: SYSTEM_SCAN_SOURCE,
      format: SYSTEM_SCAN_FORMAT,
      scopeName: scope,
      displayName: input.scanName,
      content: contentOf(input.hosts),
      records,
      fixOnly,
      verify: !!input.verify,
      ...(input.onMerged ? { onMerged: input.onMerged } : {}),
    });
    return { ...result, backports };
  }

  /** A web run's URLs → findings per URL, in the scan's scope. */
  async ingestWeb(ctx: ServiceContext, input: WebIngest): Promise<IngestResult> {
    const scope = webScanScope(input.scanId);
    const records: ImportRecord[] = [];
    const backports: BackportNote[] = [];
    const distro = new DistroRecords(this.intel);
    for (const u of input.urls) {
      const asset = webRef(u);
      if (!asset) continue;
      records.push({ type: 'asset', asset });
      for (const sw of u.software) {
        const banner = `${sw.header}: ${sw.value}`;
        const matched = await this.cveFindings(sw.cpes, sw.value, describeSoftware(sw), distro);
        for (const m of matched.findings)
          records.push({ ...m, asset, location: { kind: 'Url', url: u.url } });
        for (const n of matched.notes)
          backports.push({ ...n, banner, address: u.address ?? '', port: null, url: u.url });
      }
      for (const c of u.checks) {
        const finding = checkFinding(c);
        if (!finding) continue;
        const endpoint = endpointOf(u, c);
        if (endpoint) {
          // A TLS issue is the endpoint's (address and port): the same finding a system scan files.
          records.push({ type: 'asset', asset: endpoint.asset });
          records.push({ ...finding, asset: endpoint.asset, location: endpoint.location });
          continue;
        }
        // An https URL's http counterpart lacks the redirect to https, not the https site: filed
        // on the http site. Other checks stay on the scanned URL's site.
        const url = c.url ?? u.url;
        const site = (c.checkId === 'web.no-https-redirect' ? webRef({ url }) : null) ?? asset;
        if (site.url !== asset.url) records.push({ type: 'asset', asset: site });
        records.push({ ...finding, asset: site, location: { kind: 'Url', url } });
      }
    }
    const fixOnly = await this.fixableWeb(ctx.organizationId, scope, input);
    const result = await this.imports.ingestRecords(ctx, {
      importId: input.runId,
      source: WEB_SCAN_SOURCE,
      format: WEB_SCAN_FORMAT,
      scopeName: scope,
      displayName: input.scanName,
      content: contentOf(input.urls),
      records,
      fixOnly,
      verify: !!input.verify,
    });
    return { ...result, backports };
  }

  /**
   * The open findings of any system scan where this run looked again: their host answered and
   * their port was probed to the end (in the run's port list, not left out by a budget); a
   * host-wide one, when the host's budget held. A TLS finding only when this run judged the
   * port's TLS (TLS checks on), whichever scan, system or web, saw it last — but a name mismatch
   * only when this scan saw it last (see otherScansTls). A Verify run may close, besides the
   * findings it was asked about, only other findings on the ports it probed to the end.
   */
  private async fixableSystem(org: string, scope: string, input: SystemIngest): Promise<string[]> {
    // A host that did not answer is no evidence: its findings stay as they were.
    const hosts = new Map(input.hosts.filter(answered).map((h) => [h.address, h]));
    if (hosts.size === 0) return [];
    const located = await this.findings.scanLocations(org, {
      scopePrefix: SYSTEM_SCOPES,
      addresses: [...hosts.keys()],
      states: OPEN,
    });
    const portLooked = (host: SystemHostResult, port: number) =>
      !host.unscannedPorts.includes(port) && (input.portScanned ? input.portScanned(port) : true);
    const hostOf = (f: ScanLocation) => f.ipAddresses.map((a) => hosts.get(a)).find((h) => h !== undefined);
    const asked = new Set(input.verify?.findingIds ?? []);
    const eligible = located.filter((f) => {
      if (input.verify && !asked.has(f.id) && (f.locationKind !== 'Port' || f.port === null)) return false;
      const host = hostOf(f);
      if (!host) return false;
      if (f.locationKind !== 'Port' || f.port === null)
        return host.budgetExhausted === null || host.budgetExhausted === 'port';
      if (f.pluginId !== null && isTlsCheck(f.pluginId)) {
        if (f.pluginId === 'tls.certificate-name-mismatch' && f.scopeName !== scope) return false;
        if (f.scopeName !== scope && host.tlsChecked !== true) return false;
      }
      return portLooked(host, f.port);
    });
    // Web scans' TLS findings on a port whose TLS this run judged.
    const endpoints = (await this.otherScansTls(org, scope)).filter((f) => {
      if (input.verify && !asked.has(f.id)) return false;
      const host = hostOf(f);
      return host?.tlsChecked === true && f.port !== null && portLooked(host, f.port);
    });
    return [...new Set([...eligible, ...endpoints].map((f) => f.id))];
  }

  /**
   * The open TLS findings at a port that another Rampart scan (system or web) saw last. A name
   * mismatch is left to the scans that saw it: it depends on the name the endpoint was reached by
   * (an address, a URL's host), and a scan that came by a name the certificate carries must not
   * close what a scan by address found, only for the next one to open it again.
   */
  private async otherScansTls(org: string, scope: string): Promise<ScanLocation[]> {
    const ids = TLS_CHECK_IDS.filter((id) => id !== 'tls.certificate-name-mismatch');
    const located = await this.findings.scanLocations(org, { pluginIds: ids, states: OPEN });
    return located.filter(
      (f) => f.scopeName !== scope && scanOfScope(f.scopeName) !== null && f.locationKind === 'Port',
    );
  }

  /**
   * The open findings of any web scan on an origin this run checked to the end, without an
   * error, and the TLS findings (of any Rampart scan) of the endpoints whose TLS its URLs judged.
   * A Verify run closes only the findings it was asked about (it fetches their URLs, not the
   * whole site).
   */
  private async fixableWeb(org: string, scope: string, input: WebIngest): Promise<string[]> {
    const finished = input.urls.filter((u) => u.error === null && u.budgetExhausted === null);
    const origins = new Set(
      finished
        .flatMap((u) => [originOf(u.url), u.finalUrl ? originOf(u.finalUrl) : null])
        .filter((o): o is string => o !== null),
    );
    if (origins.size === 0) return [];
    // An https URL's http counterpart was asked only about its redirect to https.
    const counterparts = new Set(
      finished.map((u) => (u.httpCounterpart ? originOf(u.httpCounterpart) : null)).filter((o) => o !== null),
    );
    // The endpoints whose TLS a URL judged: `address:port`.
    const judged = new Set(
      finished.filter((u) => u.address && u.tlsPort).map((u) => `${u.address}:${u.tlsPort}`),
    );
    const tlsJudged = (f: ScanLocation) =>
      f.locationKind === 'Port' && f.port !== null && f.ipAddresses.some((a) => judged.has(`${a}:${f.port}`));
    const located = await this.findings.scanLocations(org, { scopePrefix: WEB_SCOPES, states: OPEN });
    const eligible = located.filter((f) => {
      if (f.pluginId !== null && isTlsCheck(f.pluginId) && f.locationKind === 'Port') {
        if (f.pluginId === 'tls.certificate-name-mismatch' && f.scopeName !== scope) return false;
        return tlsJudged(f);
      }
      const origin = f.url ? originOf(f.url) : null;
      if (origin === null) return false;
      if (origins.has(origin)) return true;
      return f.pluginId === 'web.no-https-redirect' && counterparts.has(origin);
    });
    const endpoints = (await this.otherScansTls(org, scope)).filter(tlsJudged);
    return narrow([...new Set([...eligible, ...endpoints].map((f) => f.id))], input.verify);
  }

  /**
   * Findings of the CVEs matched from CPEs, less those the distribution's records say the build
   * (read from the banner) carries the fix for.
   */
  private async cveFindings(
    cpes: string[],
    banner: string | null,
    identified: string,
    distro: DistroRecords,
  ): Promise<{
    findings: Omit<Extract<ImportRecord, { type: 'finding' }>, 'asset' | 'location'>[];
    notes: Omit<BackportNote, 'address' | 'port' | 'url'>[];
  }> {
    const findings: Omit<Extract<ImportRecord, { type: 'finding' }>, 'asset' | 'location'>[] = [];
    const notes: Omit<BackportNote, 'address' | 'port' | 'url'>[] = [];
    if (cpes.length === 0) return { findings, notes };
    const matches = (await this.intel.match({ Cpes: cpes })).filter((m) => m.Cve !== null);
    if (matches.length === 0) return { findings, notes };
    const build = banner ? parseDistroBanner(banner) : null;
    const { decisions, held } = build?.distribution
      ? await distro.decide(build)
      : { decisions: new Map<string, BackportDecision>(), held: false };
    // The banner names the build's package revision, but Rampart holds none of the distribution's
    // records of the package in the build's release: the build may well carry the fix (Debian's
    // bookworm openssh does for CVE-2024-6387), so the upstream match is not confirmed.
    const unconfirmed = build?.distribution && build.decidable && !held ? missingData(build) : null;
    for (const m of matches) {
      const cveId = m.Cve!;
      const decision = decisions.get(cveId);
      const distribution = unconfirmed ? `unconfirmed: ${unconfirmed}` : distributionLine(build, decision);
      if (banner && (build?.distribution || decision))
        notes.push({
          banner,
          cveId,
          status: unconfirmed
            ? 'Unconfirmed'
            : decision?.status === 'Fixed' || decision?.status === 'Affected'
              ? decision.status
              : 'BannerOnly',
          evidence: distribution,
        });
      if (decision?.status === 'Fixed') continue;
      const intel = await this.intel.cve(cveId);
      const record = intel?.records[0];
      findings.push({
        type: 'finding',
        vulnerability: cveVulnerability(cveId, record),
        severity: severityOf(record),
        evidence: [
          banner ? `Banner: ${banner}` : null,
          `Identified: ${identified}`,
          `Matched: ${m.MatchedBy}${m.PlatformAssumed ? ' (platform assumed)' : ''}`,
          `Distribution: ${distribution}`,
        ]
          .filter((l) => l !== null)
          .join('\n'),
        ...(unconfirmed ? { confidence: 'Unconfirmed' as const } : {}),
      });
    }
    return { findings, notes };
  }
}

/** The records of a distribution's package, read once per run. */
class DistroRecords {
  private readonly byPackage = new Map<string, Promise<DistroAdvisory[]>>();

  constructor(private readonly intel: ResultsIntel) {}

  /** The decisions per CVE, and whether Rampart holds records of the build's package in its release. */
  async decide(build: DistroBuild): Promise<{ decisions: Map<string, BackportDecision>; held: boolean }> {
    const key = packageKey(build.distribution!, build.packageName);
    let records = this.byPackage.get(key);
    if (!records) {
      // Every release of the package: the build's release is told from the records' versions.
      records = this.intel.osvForPackages([key]).then((rows) =>
        rows
          .filter((r) => r.withdrawnAt === null)
          .map((r) => ({
            id: r.id,
            aliases: r.aliases,
            upstream: r.upstream,
            related: r.related,
            affected: r.affected as DistroAdvisory['affected'],
          })),
      );
      this.byPackage.set(key, records);
    }
    const list = await records;
    return {
      decisions: new Map(decideBackports(build, list).map((d) => [d.cveId, d])),
      held: holdsRelease(build, list),
    };
  }
}

/** What an unconfirmed match lacks, and how to get it. */
function missingData(build: DistroBuild): string {
  return (
    `Rampart holds no ${build.distribution} advisory data for ${build.packageName} ${build.upstreamVersion} (OSV ${build.distribution} ecosystem), ` +
    `so it cannot tell whether ${build.distribution}'s package ${build.packageVersion} carries the fix; load ` +
    `${build.distribution}'s OSV records with \`rampart intel load <file>\`, POST /intel/loads or a feed URL ` +
    `(RAMPART_INTEL_SYNC_URLS) and scan again`
  );
}

function distributionLine(build: DistroBuild | null, decision: BackportDecision | undefined): string {
  if (decision)
    return decision.status === 'Undecidable' ? `banner-only: ${decision.evidence}` : decision.evidence;
  if (build?.distribution)
    return `banner-only: ${build.distribution} has no record of this CVE for ${build.packageName}; the upstream match stays`;
  return 'banner-only: the banner names no distribution build; the upstream match stays';
}

function narrow(eligible: string[], verify: { findingIds: string[] } | null | undefined): string[] {
  if (!verify) return eligible;
  const asked = new Set(verify.findingIds);
  return eligible.filter((id) => asked.has(id));
}

/** The finding a check result makes, from the catalogue; an id the catalogue lacks makes none. */
function checkFinding(
  c: CheckResult,
): Omit<Extract<ImportRecord, { type: 'finding' }>, 'asset' | 'location'> | null {
  const check = checkById(c.checkId);
  if (!check) return null;
  return {
    type: 'finding',
    vulnerability: {
      ruleId: check.id,
      ruleSource: CHECK_RULE_SOURCE,
      title: check.title,
      description: check.description,
      solution: check.solution,
      cweIds: check.cweIds,
      references: check.references,
      ...(check.cvss3Vector ? { cvss3Vector: check.cvss3Vector } : {}),
    },
    severity: check.severity,
    evidence: c.evidence,
  };
}

function cveVulnerability(cveId: string, record: CveIntel['records'][number] | undefined): VulnerabilityRef {
  return {
    ruleId: cveId,
    title: cveId,
    cveIds: [cveId],
    ...(record?.description ? { description: record.description } : {}),
    ...(record?.cweIds.length ? { cweIds: record.cweIds } : {}),
    ...(record?.cvss2Vector ? { cvss2Vector: record.cvss2Vector } : {}),
    ...(record?.cvss2Score != null ? { cvss2Score: record.cvss2Score } : {}),
    ...(record?.cvss3Vector ? { cvss3Vector: record.cvss3Vector } : {}),
    ...(record?.cvss3Score != null ? { cvss3Score: record.cvss3Score } : {}),
    ...(record?.cvss4Vector ? { cvss4Vector: record.cvss4Vector } : {}),
    ...(record?.cvss4Score != null ? { cvss4Score: record.cvss4Score } : {}),
    ...(record?.referenceUrls.length ? { references: record.referenceUrls.slice(0, 100) } : {}),
  };
}

/**
 * The knowledge base's CVSS that ranks (rankingCvss: the highest version) as a severity; Medium
 * when it has none.
 */
function severityOf(record: CveIntel['records'][number] | undefined): Severity {
  const ranking = record ? rankingCvss(record) : null;
  if (!ranking) return 'Medium';
  const s = cvssSeverity(ranking.score, ranking.version === '3' ? '3.1' : ranking.version);
  return s === 'None' ? 'Info' : s;
}

function hostRef(h: SystemHostResult): AssetRef {
  const name = h.hostname?.replace(/\.$/, '') || undefined;
  return {
    kind: 'Host',
    ipAddresses: [h.address],
    ...(name?.includes('.') ? { fqdn: name, hostname: name.split('.')[0] } : name ? { hostname: name } : {}),
  };
}

function webRef(u: Pick<WebUrlResult, 'url'>): AssetRef | null {
  const origin = originOf(u.url);
  return origin ? { kind: 'WebApplication', url: origin } : null;
}

/**
 * Where a web scan's TLS finding belongs: the host at the address the URL was checked on, the
 * port whose TLS was judged (the URL kept for the finding's evidence and Verify). Null for other
 * checks, or a result without an address or port.
 */
function endpointOf(
  u: WebUrlResult,
  c: CheckResult,
): { asset: AssetRef; location: Extract<ImportRecord, { type: 'finding' }>['location'] } | null {
  if (!isTlsCheck(c.checkId) || c.port === null || !u.address) return null;
  return {
    asset: { kind: 'Host', ipAddresses: [u.address] },
    location: { kind: 'Port', port: c.port, protocol: 'tcp', url: c.url ?? u.url },
  };
}

function originOf(url: string): string | null {
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.origin : null;
  } catch {
    return null;
  }
}

function describeService(s: ScannedService): string {
  const what = [s.product, s.version].filter(Boolean).join(' ') || s.service || 'a service';
  return `${what} on ${s.port}/tcp by ${s.detectedBy}, confidence ${s.confidence} (${s.evidence})`;
}

function describeSoftware(sw: WebSoftware): string {
  const what = [sw.product, sw.version].filter(Boolean).join(' ') || sw.value;
  return `${what} from the ${sw.header} header`;
}

/** The results' checksum and size, as the Import records a report file's. */
function contentOf(results: unknown[]): { sha256: string; size: number } {
  const text = JSON.stringify(results);
  return { sha256: createHash('sha256').update(text).digest('hex'), size: Buffer.byteLength(text) };
}

/** Whether a system scan's host answered (rows stored before the field existed did). */
function answered(host: SystemHostResult): boolean {
  return host.answered !== false;
}
