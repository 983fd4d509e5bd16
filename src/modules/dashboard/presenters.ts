import { toImportDto } from '../imports/presenters.js';
import type { ScanRun } from '../scanruns/types.js';
import type { AgeingBucket, BySeverity, Dashboard, DashboardScope, SlaFigure } from './types.js';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

const toScopeDto = (s: DashboardScope) =>
  s.kind === 'Tag'
    ? { Kind: s.kind, Tag: s.tag }
    : s.kind === 'ScanGroup'
      ? { Kind: s.kind, ScanGroupId: s.scanGroupId, ScanGroupName: s.scanGroupName }
      : { Kind: s.kind };

const toSlaFigureDto = (f: SlaFigure) => ({ WithSla: f.withSla, WithinSla: f.withinSla, Percent: f.percent });

const toBySeverityDto = (c: BySeverity) => ({
  Critical: c.Critical,
  High: c.High,
  Medium: c.Medium,
  Low: c.Low,
  Info: c.Info,
});

const toAgeingDto = (b: AgeingBucket) => ({
  Label: b.label,
  FromDays: b.fromDays,
  ToDays: b.toDays,
  FirstSeenAfter: iso(b.firstSeenAfter),
  FirstSeenBefore: iso(b.firstSeenBefore),
  Counts: toBySeverityDto(b.counts),
  Total: b.total,
});

const toLastScanDto = (r: ScanRun) => ({
  RunId: r.id,
  Kind: r.kind,
  ScanId: r.sourceId,
  ScanName: r.sourceName,
  State: r.state,
  QueuedAt: r.queuedAt.toISOString(),
  StartedAt: iso(r.startedAt),
  FinishedAt: iso(r.finishedAt),
  Error: r.error,
});

export const toDashboardDto = (d: Dashboard) => ({
  Scope: toScopeDto(d.scope),
  GeneratedAt: d.generatedAt.toISOString(),
  WindowDays: d.windowDays,
  WindowStart: d.windowStart.toISOString(),
  Tags: d.tags,
  SlaDays: { ...d.slaDays },
  Open: { ...toBySeverityDto(d.open), Total: d.open.total, PastSla: d.open.pastSla },
  SlaCompliance: {
    Open: toSlaFigureDto(d.sla.open),
    Fixed: toSlaFigureDto(d.sla.fixed),
    Overall: toSlaFigureDto(d.sla.overall),
  },
  Ageing: d.ageing.map(toAgeingDto),
  Mttr: d.mttr.map((m) => ({
    Severity: m.severity,
    SlaDays: m.slaDays,
    MeanDays: m.meanDays,
    MedianDays: m.medianDays,
    Count: m.count,
    WithinSla: m.withinSla,
  })),
  RiskiestAssets: d.riskiestAssets.map((a) => ({
    AssetId: a.assetId,
    Name: a.name,
    OpenFindings: a.openFindings,
    Critical: a.critical,
    High: a.high,
    RiskExposure: a.riskExposure,
    MaxRisk: a.maxRisk,
  })),
  RiskiestVulnerabilities: d.riskiestVulnerabilities.map((v) => ({
    VulnerabilityId: v.vulnerabilityId,
    Title: v.title,
    CveIds: v.cveIds,
    Kev: v.kev,
    Severity: v.severity,
    OpenFindings: v.openFindings,
    AssetsAffected: v.assetsAffected,
    RiskExposure: v.riskExposure,
    MaxRisk: v.maxRisk,
  })),
  Kev: { OpenFindings: d.kev.openFindings, AssetsAffected: d.kev.assetsAffected, Overdue: d.kev.overdue },
  LastScans: d.lastScans.map(toLastScanDto),
  LastImports: d.lastImports.map(toImportDto),
});
