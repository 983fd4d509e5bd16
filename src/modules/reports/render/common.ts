import { type TrendsInput, type WeekTotals, weeklyTotals } from '../../../charts/index.js';
import { SEVERITIES, type Severity } from '../../../db/schema.js';
import type { FindingReportRow } from '../../findings/types.js';
import type { ExecutiveData } from '../types.js';

// What every format of a report says the same way: locations, dates, the headline figures and
// each chart's figures as text (so that a PDF's or an HTML page's text holds them too).

export const SEVERITY_COLOURS: Record<Severity, string> = {
  Critical: '#b91c1c',
  High: '#ea580c',
  Medium: '#ca8a04',
  Low: '#2563eb',
  Info: '#6b7280',
};

/** Where on its asset a finding is, as one line. */
export function locationText(r: FindingReportRow): string {
  switch (r.locationKind) {
    case 'Port':
      return `${r.port ?? ''}/${r.protocol ?? 'tcp'}`;
    case 'Url':
      return r.url ?? '';
    case 'File':
      return r.filePath ?? '';
    case 'Package':
      return `${r.packageName ?? ''}${r.packageVersion ? ` ${r.packageVersion}` : ''}${r.filePath ? ` (${r.filePath})` : ''}`;
    default:
      return '';
  }
}

/** YYYY-MM-DD of an ISO timestamp (or empty). */
export const dateOf = (iso: string | null): string => (iso ? iso.slice(0, 10) : '');

/** A risk score as the lists show it. */
export const riskText = (risk: string | number): string => Number(risk).toFixed(1);

/** The heading of a technical report's group a row belongs to. */
export const groupKeyOf = (r: FindingReportRow, groupBy: 'Asset' | 'Vulnerability') =>
  groupBy === 'Asset' ? r.assetId : r.vulnerabilityId;
export const groupTitleOf = (r: FindingReportRow, groupBy: 'Asset' | 'Vulnerability') =>
  groupBy === 'Asset' ? r.assetName : `${r.title}${r.cves ? ` (${r.cves})` : ''}`;

export const TECHNICAL_COLUMNS = [
  'Asset',
  'Finding',
  'Severity',
  'Risk',
  'CVE',
  'Location',
  'First seen',
  'Due',
  'Solution',
] as const;

/** A technical row's cells, in TECHNICAL_COLUMNS' order. */
export function technicalCells(r: FindingReportRow): string[] {
  return [
    r.assetName,
    `${r.title}${r.kev ? ' [KEV]' : ''}`,
    r.effectiveSeverity,
    riskText(r.riskScore),
    r.cves,
    locationText(r),
    dateOf(r.firstSeenAt),
    dateOf(r.dueAt),
    r.solution ?? '',
  ];
}

/** A table: a caption, its header and its rows, all text. */
export interface FigureTable {
  title: string;
  head: string[];
  rows: string[][];
}

const pct = (n: number | null) => (n === null ? 'n/a' : `${n.toFixed(1)}%`);

/** The share of open findings with a due date that are not past it; null when none has one. */
export function slaCompliance(d: ExecutiveData): number | null {
  const f = d.figures;
  return f.withDueDate === 0 ? null : ((f.withDueDate - f.pastDue) / f.withDueDate) * 100;
}

export const totalOpen = (d: ExecutiveData) =>
  SEVERITIES.reduce((n, s) => n + d.figures.openBySeverity[s], 0);

/** New and fixed findings over the report's period (from its history). */
export function newAndFixed(d: ExecutiveData): { new: number; fixed: number } | null {
  if (d.trend.length === 0) return null;
  return d.trend.reduce((t, p) => ({ new: t.new + p.new, fixed: t.fixed + p.fixed }), { new: 0, fixed: 0 });
}

/** The headline figures, label and value. */
export function headline(d: ExecutiveData): [string, string][] {
  const nf = newAndFixed(d);
  return [
    ['Open findings', String(totalOpen(d))],
    ...SEVERITIES.map((s): [string, string] => [`Open ${s}`, String(d.figures.openBySeverity[s])]),
    ['Open KEV findings', String(d.figures.kevOpen)],
    ['Past SLA', String(d.figures.pastDue)],
    ['Due within 7 days', String(d.figures.dueSoon)],
    ['SLA compliance', pct(slaCompliance(d))],
    ['Risk exposure', riskText(d.figures.riskExposure)],
    ['New in period', nf ? String(nf.new) : 'n/a'],
    ['Fixed in period', nf ? String(nf.fixed) : 'n/a'],
  ];
}

/** New and fixed findings per ISO week (the dashboard's weeks). */
export function weeklyNewFixed(d: ExecutiveData): WeekTotals[] {
  return weeklyTotals(trendsInput(d));
}

/** The trend as the dashboard's charts read GET /trends. */
export function trendsInput(d: ExecutiveData): TrendsInput {
  return {
    Days: d.trend.map((p) => ({
      Date: p.date,
      Open: p.open,
      New: p.new,
      Fixed: p.fixed,
      KevOpen: p.kevOpen,
    })),
  };
}

/** The latest mean time to remediate of each severity, from the trend's last day. */
export function mttrNow(d: ExecutiveData): Record<Severity, number | null> | null {
  const last = d.trend[d.trend.length - 1];
  return last ? last.mttrDays : null;
}

/** Every figure table of an executive report (the charts' figures as text, and the rankings). */
export function figureTables(d: ExecutiveData): FigureTable[] {
  const tables: FigureTable[] = [
    {
      title: 'Open findings by severity',
      head: ['Severity', 'Open'],
      rows: SEVERITIES.map((s) => [s, String(d.figures.openBySeverity[s])]),
    },
  ];
  if (d.trend.length > 0) {
    const first = d.trend[0]!;
    const last = d.trend[d.trend.length - 1]!;
    tables.push({
      title: `Open findings over time (${first.date} to ${last.date})`,
      head: ['Severity', first.date, last.date],
      rows: SEVERITIES.map((s) => [s, String(first.open[s]), String(last.open[s])]),
    });
    tables.push({
      title: 'Open KEV findings',
      head: ['Day', 'Open KEV findings'],
      rows: [first, last].map((p) => [p.date, String(p.kevOpen)]),
    });
    tables.push({
      title: 'New vs fixed per week',
      head: ['Week of', 'New', 'Fixed'],
      rows: weeklyNewFixed(d).map((w) => [w.week, String(w.new), String(w.fixed)]),
    });
    const mttr = mttrNow(d)!;
    tables.push({
      title: 'Mean time to remediate vs SLA (days)',
      head: ['Severity', 'MTTR', 'SLA'],
      rows: SEVERITIES.map((s) => [
        s,
        mttr[s] === null ? 'n/a' : (Math.round(mttr[s]! * 10) / 10).toFixed(1),
        d.slaDays[s] === null ? 'none' : String(d.slaDays[s]),
      ]),
    });
  }
  tables.push({
    title: 'Top 10 riskiest assets',
    head: ['Asset', 'Open findings', 'Highest severity', 'Risk'],
    rows: d.figures.riskiestAssets.map((a) => [
      a.name,
      String(a.openFindings),
      a.maxSeverity,
      riskText(a.risk),
    ]),
  });
  tables.push({
    title: 'Top 10 riskiest vulnerabilities',
    head: ['Vulnerability', 'CVE', 'Open findings', 'Highest severity', 'Risk'],
    rows: d.figures.riskiestVulnerabilities.map((v) => [
      v.name,
      v.cves,
      String(v.openFindings),
      v.maxSeverity,
      riskText(v.risk),
    ]),
  });
  return tables;
}
