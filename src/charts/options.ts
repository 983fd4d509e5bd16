/**
 * The dashboard's charts as ECharts options: pure functions from the API's answers (GET /trends,
 * GET /dashboard) to an option, with no DOM or Node API, so that the web app draws them in the
 * browser and the server renders the same options to SVG for reports (svg.ts).
 */
import type { BarSeriesOption, LineSeriesOption, ScatterSeriesOption } from 'echarts/charts';
import type { GridComponentOption, LegendComponentOption, TooltipComponentOption } from 'echarts/components';
import type { ComposeOption } from 'echarts/core';
import { type ChartPalette, type ChartTheme, paletteOf, severityColor } from './colors.js';
import {
  type AgeingBucketInput,
  CHART_SEVERITIES,
  type ChartSeverity,
  type MttrInput,
  type SlaComplianceInput,
  type TrendsInput,
} from './types.js';

export type ChartOption = ComposeOption<
  | BarSeriesOption
  | LineSeriesOption
  | ScatterSeriesOption
  | GridComponentOption
  | LegendComponentOption
  | TooltipComponentOption
>;

export interface ChartOptions {
  theme: ChartTheme;
  /** Leave out the animation (server-side rendering, screenshots, reduced motion). */
  animation?: boolean;
}

/** The series names a chart's figures are told by (the web app maps a click on one to a filter). */
export const SERIES = {
  new: 'New',
  fixed: 'Fixed',
  meanDays: 'Mean days to fix',
  slaDays: 'SLA (days)',
  kevOpen: 'Open KEV findings',
  compliance: 'Within SLA (%)',
} as const;

/** What every chart shares: the page's text colours, a transparent background, legend and grid. */
function frame(p: ChartPalette, o: ChartOptions, legend: boolean): ChartOption {
  return {
    animation: o.animation ?? true,
    backgroundColor: 'transparent',
    // No quoted family names: ECharts writes the list into an SVG style attribute as it is.
    textStyle: { color: p.text, fontFamily: 'system-ui, -apple-system, Segoe UI, Roboto, Arial, sans-serif' },
    tooltip: { trigger: 'axis', confine: true },
    ...(legend
      ? { legend: { top: 0, textStyle: { color: p.text }, inactiveColor: p.axis, itemGap: 14 } }
      : {}),
    grid: { left: 8, right: 16, top: legend ? 36 : 16, bottom: 8 },
  };
}

function categoryAxis(p: ChartPalette, data: string[]) {
  return {
    type: 'category' as const,
    data,
    axisLine: { lineStyle: { color: p.axis } },
    axisTick: { lineStyle: { color: p.axis } },
    axisLabel: { color: p.dimmed, hideOverlap: true },
  };
}

function valueAxis(p: ChartPalette, extra: { name?: string; max?: number } = {}) {
  return {
    type: 'value' as const,
    minInterval: 1,
    ...(extra.name ? { name: extra.name, nameTextStyle: { color: p.dimmed } } : {}),
    ...(extra.max !== undefined ? { max: extra.max } : {}),
    axisLabel: { color: p.dimmed },
    splitLine: { lineStyle: { color: p.grid } },
  };
}

/** Open findings at the end of each day, by severity, stacked (Critical on top). */
export function openFindingsOverTimeOption(trends: TrendsInput, o: ChartOptions): ChartOption {
  const p = paletteOf(o.theme);
  const dates = trends.Days.map((d) => d.Date);
  // Info at the bottom, Critical on top: the stack reads from the worst down.
  const series: LineSeriesOption[] = [...CHART_SEVERITIES].reverse().map((severity) => ({
    type: 'line',
    name: severity,
    stack: 'open',
    areaStyle: { opacity: 0.85 },
    symbol: 'none',
    lineStyle: { width: 1 },
    color: severityColor(o.theme, severity),
    emphasis: { focus: 'series' },
    data: trends.Days.map((d) => d.Open[severity]),
  }));
  return {
    ...frame(p, o, true),
    legend: { top: 0, data: [...CHART_SEVERITIES], textStyle: { color: p.text }, inactiveColor: p.axis },
    xAxis: { ...categoryAxis(p, dates), boundaryGap: false },
    yAxis: valueAxis(p),
    series,
  };
}

/** The Monday (YYYY-MM-DD) of the ISO week of a YYYY-MM-DD date. */
export function weekOf(date: string): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const utc = Date.UTC(y, m - 1, d);
  const weekday = (new Date(utc).getUTCDay() + 6) % 7; // Monday 0 … Sunday 6
  return new Date(utc - weekday * 86_400_000).toISOString().slice(0, 10);
}

export interface WeekTotals {
  /** The Monday the week starts on. */
  week: string;
  new: number;
  fixed: number;
}

/** The days of a trend summed by ISO week (Monday first), oldest first. */
export function weeklyTotals(trends: TrendsInput): WeekTotals[] {
  const weeks = new Map<string, WeekTotals>();
  for (const day of trends.Days) {
    const week = weekOf(day.Date);
    const totals = weeks.get(week) ?? { week, new: 0, fixed: 0 };
    totals.new += day.New;
    totals.fixed += day.Fixed;
    weeks.set(week, totals);
  }
  return [...weeks.values()].sort((a, b) => a.week.localeCompare(b.week));
}

/** New and fixed findings per week, side by side. */
export function newVsFixedOption(trends: TrendsInput, o: ChartOptions): ChartOption {
  const p = paletteOf(o.theme);
  const weeks = weeklyTotals(trends);
  const bar = (name: string, color: string, values: number[]): BarSeriesOption => ({
    type: 'bar',
    name,
    color,
    barMaxWidth: 28,
    data: values,
  });
  return {
    ...frame(p, o, true),
    xAxis: categoryAxis(
      p,
      weeks.map((w) => w.week),
    ),
    yAxis: valueAxis(p),
    series: [
      bar(
        SERIES.new,
        p.negative,
        weeks.map((w) => w.new),
      ),
      bar(
        SERIES.fixed,
        p.positive,
        weeks.map((w) => w.fixed),
      ),
    ],
  };
}

const oneDecimal = (n: number) => Math.round(n * 10) / 10;

/**
 * Mean days to remediate each severity as bars in the severity's colour, the SLA as a marker
 * across each bar (none for a severity without an SLA).
 */
export function mttrVsSlaOption(mttr: readonly MttrInput[], o: ChartOptions): ChartOption {
  const p = paletteOf(o.theme);
  const rows = orderBySeverity(mttr);
  return {
    ...frame(p, o, true),
    tooltip: { trigger: 'axis', confine: true, axisPointer: { type: 'shadow' } },
    xAxis: categoryAxis(
      p,
      rows.map((r) => r.Severity),
    ),
    yAxis: valueAxis(p, { name: 'days' }),
    series: [
      {
        type: 'bar',
        name: SERIES.meanDays,
        barMaxWidth: 40,
        color: p.primary,
        label: { show: true, position: 'top', color: p.text, formatter: '{c}' },
        data: rows.map((r) => ({
          value: r.MeanDays === null ? '-' : oneDecimal(r.MeanDays),
          itemStyle: { color: severityColor(o.theme, r.Severity) },
        })),
      },
      {
        type: 'scatter',
        name: SERIES.slaDays,
        color: p.sla,
        symbol: 'rect',
        symbolSize: [44, 3],
        z: 3,
        label: { show: true, position: 'right', color: p.dimmed, formatter: 'SLA {c}' },
        data: rows.map((r) => (r.SlaDays === null ? '-' : r.SlaDays)),
      },
    ],
  };
}

/** SLA compliance in per cent: open findings now, findings fixed in the window, both. */
export function slaComplianceOption(sla: SlaComplianceInput, o: ChartOptions): ChartOption {
  const p = paletteOf(o.theme);
  const rows = [
    { name: 'Open now', figure: sla.Open },
    { name: 'Fixed (90 days)', figure: sla.Fixed },
    { name: 'Overall', figure: sla.Overall },
  ];
  const colorOf = (percent: number | null) =>
    percent === null
      ? p.axis
      : percent >= 90
        ? p.positive
        : percent >= 70
          ? severityColor(o.theme, 'Medium')
          : p.negative;
  return {
    ...frame(p, o, false),
    tooltip: { trigger: 'axis', confine: true, axisPointer: { type: 'shadow' } },
    grid: { left: 8, right: 48, top: 8, bottom: 8 },
    xAxis: { ...valueAxis(p, { max: 100 }), axisLabel: { color: p.dimmed, formatter: '{value} %' } },
    yAxis: { ...categoryAxis(p, rows.map((r) => r.name).reverse()), axisLabel: { color: p.text } },
    series: [
      {
        type: 'bar',
        name: SERIES.compliance,
        barMaxWidth: 26,
        label: { show: true, position: 'right', color: p.text, formatter: '{c} %' },
        data: [...rows].reverse().map((r) => ({
          value: r.figure.Percent === null ? '-' : oneDecimal(r.figure.Percent),
          itemStyle: { color: colorOf(r.figure.Percent) },
        })),
      },
    ],
  };
}

/** Open findings by age, stacked by severity. */
export function ageingOption(buckets: readonly AgeingBucketInput[], o: ChartOptions): ChartOption {
  const p = paletteOf(o.theme);
  return {
    ...frame(p, o, true),
    tooltip: { trigger: 'axis', confine: true, axisPointer: { type: 'shadow' } },
    legend: { top: 0, data: [...CHART_SEVERITIES], textStyle: { color: p.text }, inactiveColor: p.axis },
    // Every bucket named (none left out for want of room), the unit once under them.
    xAxis: {
      ...categoryAxis(
        p,
        buckets.map((b) => b.Label),
      ),
      axisLabel: { color: p.dimmed, interval: 0 },
      name: 'days open',
      nameLocation: 'middle',
      nameGap: 28,
      nameTextStyle: { color: p.dimmed },
    },
    yAxis: valueAxis(p),
    series: [...CHART_SEVERITIES].reverse().map(
      (severity): BarSeriesOption => ({
        type: 'bar',
        name: severity,
        stack: 'age',
        barMaxWidth: 48,
        color: severityColor(o.theme, severity),
        emphasis: { focus: 'series' },
        data: buckets.map((b) => b.Counts[severity]),
      }),
    ),
  };
}

/** Open findings of known exploited vulnerabilities (CISA KEV) at the end of each day. */
export function kevExposureOption(trends: TrendsInput, o: ChartOptions): ChartOption {
  const p = paletteOf(o.theme);
  return {
    ...frame(p, o, false),
    xAxis: {
      ...categoryAxis(
        p,
        trends.Days.map((d) => d.Date),
      ),
      boundaryGap: false,
    },
    yAxis: valueAxis(p),
    series: [
      {
        type: 'line',
        name: SERIES.kevOpen,
        color: p.kev,
        symbol: 'none',
        step: 'end',
        areaStyle: { opacity: 0.2 },
        data: trends.Days.map((d) => d.KevOpen),
      },
    ],
  };
}

function orderBySeverity<T extends { Severity: ChartSeverity }>(rows: readonly T[]): T[] {
  return [...rows].sort(
    (a, b) => CHART_SEVERITIES.indexOf(a.Severity) - CHART_SEVERITIES.indexOf(b.Severity),
  );
}
