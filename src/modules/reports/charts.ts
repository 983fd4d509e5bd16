import {
  kevExposureOption,
  mttrVsSlaOption,
  newVsFixedOption,
  openFindingsOverTimeOption,
  slaComplianceOption,
} from '../../charts/index.js';
import { renderChartSvg } from '../../charts/svg.js';
import { SEVERITIES } from '../../db/schema.js';
import { type FigureTable, figureTables, mttrNow, slaCompliance, trendsInput } from './render/common.js';
import type { ReportChart } from './render/html.js';
import type { ExecutiveData } from './types.js';

// An executive report's charts: the dashboard's own ECharts options (src/charts), in its light
// theme, rendered to SVG on the server without a browser. Each chart carries the figures it draws
// as a table, so that a report's text holds them (and a reader without the picture has them).

// Drawn two abreast on an A4 page: small enough to pair, large enough that their text reads.
const SIZE = { width: 420, height: 220 };
const OPTIONS = { theme: 'light' as const, animation: false };

const tableNamed = (tables: FigureTable[], title: string) => tables.find((t) => t.title.startsWith(title))!;

export function executiveCharts(d: ExecutiveData): ReportChart[] {
  const tables = figureTables(d);
  const compliance = slaCompliance(d);
  const withinSla = d.figures.withDueDate - d.figures.pastDue;
  const open = { WithSla: d.figures.withDueDate, WithinSla: withinSla, Percent: compliance };
  const f = d.figures;
  const fixed = {
    WithSla: f.fixedWithDueDate,
    WithinSla: f.fixedWithinSla,
    Percent: f.fixedWithDueDate === 0 ? null : (f.fixedWithinSla / f.fixedWithDueDate) * 100,
  };
  const allWith = open.WithSla + fixed.WithSla;
  const allWithin = open.WithinSla + fixed.WithinSla;
  const overall = {
    WithSla: allWith,
    WithinSla: allWithin,
    Percent: allWith === 0 ? null : (allWithin / allWith) * 100,
  };
  const pct = (n: number | null) => (n === null ? 'n/a' : `${n.toFixed(1)}%`);
  const charts: ReportChart[] = [];
  if (d.trend.length > 0) {
    const trends = trendsInput(d);
    const mttr = mttrNow(d)!;
    charts.push(
      {
        title: 'Open findings over time',
        svg: renderChartSvg(openFindingsOverTimeOption(trends, OPTIONS), SIZE),
        table: tableNamed(tables, 'Open findings over time'),
      },
      {
        title: 'New vs fixed per week',
        svg: renderChartSvg(newVsFixedOption(trends, OPTIONS), SIZE),
        table: tableNamed(tables, 'New vs fixed per week'),
      },
      {
        title: 'Mean time to remediate vs SLA',
        svg: renderChartSvg(
          mttrVsSlaOption(
            SEVERITIES.map((s) => ({
              Severity: s,
              SlaDays: d.slaDays[s],
              MeanDays: mttr[s],
              MedianDays: null,
              Count: 0,
            })),
            OPTIONS,
          ),
          SIZE,
        ),
        table: tableNamed(tables, 'Mean time to remediate'),
      },
      {
        title: 'KEV exposure',
        svg: renderChartSvg(kevExposureOption(trends, OPTIONS), SIZE),
        table: tableNamed(tables, 'Open KEV findings'),
      },
    );
  }
  charts.push({
    title: 'SLA compliance',
    svg: renderChartSvg(slaComplianceOption({ Open: open, Fixed: fixed, Overall: overall }, OPTIONS), {
      width: SIZE.width,
      height: 160,
    }),
    table: {
      title: 'SLA compliance',
      head: ['Findings', 'With a due date', 'Within SLA', 'Compliance'],
      rows: [
        ['Open now', String(open.WithSla), String(open.WithinSla), pct(open.Percent)],
        ['Fixed (90 days)', String(fixed.WithSla), String(fixed.WithinSla), pct(fixed.Percent)],
        ['Overall', String(overall.WithSla), String(overall.WithinSla), pct(overall.Percent)],
      ],
    },
  });
  return charts;
}
