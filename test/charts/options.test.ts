import { describe, expect, it } from 'vitest';
import {
  ageingOption,
  type ChartOption,
  kevExposureOption,
  mttrVsSlaOption,
  newVsFixedOption,
  openFindingsOverTimeOption,
  SERIES,
  severityColor,
  slaComplianceOption,
  type TrendDayInput,
  weeklyTotals,
  weekOf,
} from '../../src/charts/index.js';

const zero = { Critical: 0, High: 0, Medium: 0, Low: 0, Info: 0 };
const day = (date: string, d: Partial<TrendDayInput> = {}): TrendDayInput => ({
  Date: date,
  Open: zero,
  New: 0,
  Fixed: 0,
  KevOpen: 0,
  ...d,
});

/** The series of an option, by name. */
function series(option: ChartOption) {
  const list = (Array.isArray(option.series) ? option.series : [option.series]) as {
    name: string;
    type: string;
    data: unknown[];
    color?: string;
    stack?: string;
  }[];
  return new Map(list.map((s) => [s.name, s]));
}
const values = (data: unknown[]) =>
  data.map((d) =>
    typeof d === 'object' && d !== null && 'value' in d ? (d as { value: unknown }).value : d,
  );
const axisData = (axis: unknown) => (axis as { data: string[] }).data;

describe('chart options', () => {
  const trends = {
    Days: [
      day('2026-11-01', { Open: { ...zero, Critical: 2, High: 5 }, New: 7, KevOpen: 1 }), // a Sunday
      day('2026-11-02', { Open: { ...zero, Critical: 1, High: 6, Low: 3 }, New: 4, Fixed: 2, KevOpen: 1 }),
      day('2026-11-08', { Open: { ...zero, Critical: 1, High: 4, Low: 3 }, Fixed: 1, KevOpen: 0 }),
      day('2026-11-09', { Open: { ...zero, High: 4, Low: 2, Info: 9 }, New: 1, Fixed: 3, KevOpen: 2 }),
    ],
  };

  it('stacks open findings over time by severity, each in its severity colour', () => {
    const option = openFindingsOverTimeOption(trends, { theme: 'light' });
    const s = series(option);
    expect(axisData(option.xAxis)).toEqual(['2026-11-01', '2026-11-02', '2026-11-08', '2026-11-09']);
    expect(s.get('Critical')?.data).toEqual([2, 1, 1, 0]);
    expect(s.get('High')?.data).toEqual([5, 6, 4, 4]);
    expect(s.get('Info')?.data).toEqual([0, 0, 0, 9]);
    expect(new Set([...s.values()].map((x) => x.stack))).toEqual(new Set(['open']));
    expect(s.get('Critical')?.color).toBe(severityColor('light', 'Critical'));
    const dark = series(openFindingsOverTimeOption(trends, { theme: 'dark' }));
    expect(dark.get('Critical')?.color).toBe(severityColor('dark', 'Critical'));
    expect(severityColor('dark', 'Critical')).not.toBe(severityColor('light', 'Critical'));
  });

  it('sums new and fixed findings by ISO week, Monday first', () => {
    expect(weekOf('2026-11-01')).toBe('2026-10-26'); // Sunday → the Monday before
    expect(weekOf('2026-11-02')).toBe('2026-11-02'); // Monday
    expect(weekOf('2026-11-08')).toBe('2026-11-02');
    expect(weekOf('2024-03-03')).toBe('2024-02-26'); // across a leap day
    expect(weeklyTotals(trends)).toEqual([
      { week: '2026-10-26', new: 7, fixed: 0 },
      { week: '2026-11-02', new: 4, fixed: 3 },
      { week: '2026-11-09', new: 1, fixed: 3 },
    ]);
    const option = newVsFixedOption(trends, { theme: 'dark' });
    expect(axisData(option.xAxis)).toEqual(['2026-10-26', '2026-11-02', '2026-11-09']);
    expect(series(option).get(SERIES.new)?.data).toEqual([7, 4, 1]);
    expect(series(option).get(SERIES.fixed)?.data).toEqual([0, 3, 3]);
  });

  it('draws mean days to fix per severity against the SLA, in severity order', () => {
    const option = mttrVsSlaOption(
      [
        { Severity: 'High', SlaDays: 30, MeanDays: 41.26, MedianDays: 40, Count: 3 },
        { Severity: 'Critical', SlaDays: 7, MeanDays: 4.25, MedianDays: 3, Count: 2 },
        { Severity: 'Info', SlaDays: null, MeanDays: null, MedianDays: null, Count: 0 },
      ],
      { theme: 'light' },
    );
    expect(axisData(option.xAxis)).toEqual(['Critical', 'High', 'Info']);
    const s = series(option);
    expect(values(s.get(SERIES.meanDays)!.data)).toEqual([4.3, 41.3, '-']);
    expect(s.get(SERIES.slaDays)?.data).toEqual([7, 30, '-']);
    expect(s.get(SERIES.slaDays)?.type).toBe('scatter');
  });

  it('shows SLA compliance in per cent, an unknown figure as no bar', () => {
    const option = slaComplianceOption(
      {
        Open: { WithSla: 8, WithinSla: 6, Percent: 75 },
        Fixed: { WithSla: 0, WithinSla: 0, Percent: null },
        Overall: { WithSla: 8, WithinSla: 6, Percent: 75 },
      },
      { theme: 'light' },
    );
    // Horizontal bars list bottom-up: the first row is drawn at the top.
    expect(axisData(option.yAxis)).toEqual(['Overall', 'Fixed (90 days)', 'Open now']);
    expect(values(series(option).get(SERIES.compliance)!.data)).toEqual([75, '-', 75]);
  });

  it('stacks the ageing buckets by severity', () => {
    const option = ageingOption(
      [
        { Label: '0–30', Counts: { ...zero, Critical: 1, Low: 4 } },
        { Label: '>365', Counts: { ...zero, High: 2 } },
      ],
      { theme: 'dark' },
    );
    expect(axisData(option.xAxis)).toEqual(['0–30', '>365']);
    expect(series(option).get('Critical')?.data).toEqual([1, 0]);
    expect(series(option).get('Low')?.data).toEqual([4, 0]);
    expect(series(option).get('High')?.data).toEqual([0, 2]);
  });

  it('follows open KEV findings day by day', () => {
    const option = kevExposureOption(trends, { theme: 'light' });
    expect(series(option).get(SERIES.kevOpen)?.data).toEqual([1, 1, 0, 2]);
  });

  it('draws an empty trend without failing', () => {
    expect(series(openFindingsOverTimeOption({ Days: [] }, { theme: 'light' })).get('High')?.data).toEqual(
      [],
    );
    expect(weeklyTotals({ Days: [] })).toEqual([]);
  });
});
