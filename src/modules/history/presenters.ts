import type { Static } from 'typebox';
import type { TrendQuery } from './schemas.js';
import type { HistoryScope, Trend, TrendDay } from './types.js';

// How trends look on the wire: PascalCase, as the contract of GET /trends has them.

/** The scope a trends query asks for (the route refuses Tag and ScanGroupId together). */
export const scopeFromQuery = (q: Static<typeof TrendQuery>): HistoryScope =>
  q.Tag !== undefined
    ? { kind: 'Tag', tag: q.Tag }
    : q.ScanGroupId !== undefined
      ? { kind: 'ScanGroup', scanGroupId: q.ScanGroupId }
      : { kind: 'Organization' };

const toScopeDto = (s: HistoryScope) =>
  s.kind === 'Tag'
    ? { Kind: s.kind, Tag: s.tag }
    : s.kind === 'ScanGroup'
      ? { Kind: s.kind, ScanGroupId: s.scanGroupId }
      : { Kind: s.kind };

const mttrDto = (m: TrendDay['mttr'][keyof TrendDay['mttr']]) =>
  m ? { MeanDays: m.meanDays, MedianDays: m.medianDays, Count: m.count } : null;

export const toTrendDayDto = (d: TrendDay) => ({
  Date: d.date,
  Open: { ...d.open },
  ByState: { ...d.byState },
  New: d.new,
  Fixed: d.fixed,
  Reopened: d.reopened,
  PastSla: d.pastSla,
  DueSoon: d.dueSoon,
  RiskExposure: d.riskExposure,
  KevOpen: d.kevOpen,
  AssetsSeen: d.assetsSeen,
  AssetsScanned: d.assetsScanned,
  Mttr: {
    Critical: mttrDto(d.mttr.Critical),
    High: mttrDto(d.mttr.High),
    Medium: mttrDto(d.mttr.Medium),
    Low: mttrDto(d.mttr.Low),
    Info: mttrDto(d.mttr.Info),
  },
});

export const toTrendDto = (t: Trend) => ({
  Scope: toScopeDto(t.scope),
  TimeZone: t.timeZone,
  From: t.from,
  To: t.to,
  Days: t.days.map(toTrendDayDto),
  Build: t.build ? { State: t.build.state, DaysDone: t.build.daysDone, DaysTotal: t.build.daysTotal } : null,
});
