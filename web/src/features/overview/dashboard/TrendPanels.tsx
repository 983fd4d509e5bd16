import { Anchor, Skeleton, Table } from '@mantine/core';
import { type ReactNode, useCallback, useMemo } from 'react';
import { Link, useNavigate } from 'react-router';
import {
  type ChartTheme,
  kevExposureOption,
  newVsFixedOption,
  openFindingsOverTimeOption,
  SERIES,
  weeklyTotals,
} from '../../../../../src/charts/index.js';
import { type DashboardFilter, type Trends, useTrends } from '../../../api/dashboard';
import { SEVERITIES } from '../../../api/findings';
import { QueryError } from '../../../components/QueryError';
import { findingsLink, OPEN } from '../links';
import { ChartCard } from './ChartCard';
import { type ChartItem, EChart } from './EChart';

/** How many days of history the trend charts show. */
export const TREND_DAYS = 90;
const DAY_MS = 86_400_000;

/** The UTC instant of midnight at the start of a YYYY-MM-DD day in a time zone. */
export function zonedMidnight(day: string, timeZone: string): Date {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  const guess = Date.UTC(y, m - 1, d);
  let parts: Intl.DateTimeFormatPart[];
  try {
    parts = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    }).formatToParts(new Date(guess));
  } catch {
    return new Date(guess);
  }
  const part = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  const shown = Date.UTC(
    part('year'),
    part('month') - 1,
    part('day'),
    part('hour'),
    part('minute'),
    part('second'),
  );
  return new Date(guess - (shown - guess));
}

/** The findings filters of a span of days [from, from + days) in the organisation's time zone. */
function span(from: string, days: number, timeZone: string) {
  const start = zonedMidnight(from, timeZone);
  const end = new Date(start.getTime() + days * DAY_MS);
  // After is strict: one millisecond before midnight, so a finding first seen at midnight counts.
  return { after: new Date(start.getTime() - 1).toISOString(), before: end.toISOString() };
}

/** The history behind the charts over time: the last TREND_DAYS days up to today (the API's default). */
export function useDashboardTrends(filter: DashboardFilter) {
  return useTrends(filter);
}

type TrendQuery = ReturnType<typeof useDashboardTrends>;

/** The trend's chart once the history is there; its loading and its error meanwhile. */
function withTrends(query: TrendQuery, draw: (trends: Trends) => ReactNode, height = 300): ReactNode {
  if (query.isPending) return <Skeleton height={height} role="status" aria-label="Loading the history" />;
  if (query.isError) return <QueryError error={query.error} onRetry={() => query.refetch()} />;
  return draw(query.data);
}

const noHistory = (trends: Trends) =>
  trends.Days.length === 0 && 'No history yet: it is recorded day by day from the findings.';

/** Open findings at the end of each day, stacked by severity. */
export function OpenOverTimeCard({ query, filter, theme }: TrendCardProps) {
  const navigate = useNavigate();
  const openLink = useCallback(
    (severity?: string) => findingsLink(filter, { State: OPEN, Severity: severity }),
    [filter],
  );
  const onClick = useCallback(
    (item: ChartItem) => navigate(openLink(item.seriesName || undefined)),
    [navigate, openLink],
  );
  const option = useMemo(
    () => (query.data ? openFindingsOverTimeOption(query.data, { theme }) : null),
    [query.data, theme],
  );
  const days = query.data?.Days ?? [];
  const last = days.at(-1);
  return (
    <ChartCard
      title="Open findings over time"
      description={`At the end of each day of the last ${TREND_DAYS} days, by severity.`}
      empty={query.data ? noHistory(query.data) : false}
      chart={withTrends(query, () =>
        option ? (
          <EChart
            option={option}
            height={280}
            label={`Open findings over time, stacked by severity. On ${last?.Date ?? 'the last day'}: ${SEVERITIES.map((s) => `${s} ${last?.Open[s] ?? 0}`).join(', ')}.`}
            onItemClick={onClick}
          />
        ) : null,
      )}
      table={
        <Table.ScrollContainer minWidth={420} mah={300}>
          <Table striped withTableBorder stickyHeader fz="sm" verticalSpacing={2}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Day</Table.Th>
                {SEVERITIES.map((s) => (
                  <Table.Th key={s} ta="right">
                    <Anchor
                      component={Link}
                      to={openLink(s)}
                      size="sm"
                      aria-label={`${s}: the open findings now`}
                    >
                      {s}
                    </Anchor>
                  </Table.Th>
                ))}
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {[...days].reverse().map((d) => (
                <Table.Tr key={d.Date}>
                  <Table.Th scope="row">{d.Date}</Table.Th>
                  {SEVERITIES.map((s) => (
                    <Table.Td key={s} ta="right">
                      {d.Open[s]}
                    </Table.Td>
                  ))}
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      }
    />
  );
}

/** Findings first seen and fixed, week by week. */
export function NewVsFixedCard({ query, filter, theme }: TrendCardProps) {
  const navigate = useNavigate();
  const timeZone = query.data?.TimeZone ?? 'UTC';
  const weekLink = useCallback(
    (week: string, series: string) => {
      const { after, before } = span(week, 7, timeZone);
      return series === SERIES.fixed
        ? findingsLink(filter, { State: 'Fixed', FixedAfter: after, FixedBefore: before })
        : findingsLink(filter, { State: [], FirstSeenAfter: after, FirstSeenBefore: before });
    },
    [filter, timeZone],
  );
  const onClick = useCallback(
    (item: ChartItem) => navigate(weekLink(item.name, item.seriesName)),
    [navigate, weekLink],
  );
  const option = useMemo(
    () => (query.data ? newVsFixedOption(query.data, { theme }) : null),
    [query.data, theme],
  );
  const weeks = useMemo(() => (query.data ? weeklyTotals(query.data) : []), [query.data]);
  return (
    <ChartCard
      title="New and fixed per week"
      description="Findings first seen and findings fixed, weeks starting on Monday."
      empty={query.data ? noHistory(query.data) : false}
      chart={withTrends(query, () =>
        option ? (
          <EChart
            option={option}
            height={280}
            label={`New and fixed findings per week: ${weeks.map((w) => `week of ${w.week} ${w.new} new, ${w.fixed} fixed`).join('; ')}.`}
            onItemClick={onClick}
          />
        ) : null,
      )}
      table={
        <Table.ScrollContainer minWidth={320} mah={300}>
          <Table striped withTableBorder stickyHeader fz="sm" verticalSpacing={2}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Week of</Table.Th>
                <Table.Th ta="right">New</Table.Th>
                <Table.Th ta="right">Fixed</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {[...weeks].reverse().map((w) => (
                <Table.Tr key={w.week}>
                  <Table.Th scope="row">{w.week}</Table.Th>
                  <Table.Td ta="right">
                    <Anchor
                      component={Link}
                      to={weekLink(w.week, SERIES.new)}
                      size="sm"
                      aria-label={`Week of ${w.week}: ${w.new} new`}
                    >
                      {w.new}
                    </Anchor>
                  </Table.Td>
                  <Table.Td ta="right">
                    <Anchor
                      component={Link}
                      to={weekLink(w.week, SERIES.fixed)}
                      size="sm"
                      aria-label={`Week of ${w.week}: ${w.fixed} fixed`}
                    >
                      {w.fixed}
                    </Anchor>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      }
    />
  );
}

/** Open KEV findings day by day: the chart and its table, inside the KEV card. */
export function KevOverTime({ query, filter, theme }: TrendCardProps) {
  const navigate = useNavigate();
  const onClick = useCallback(
    () => navigate(findingsLink(filter, { State: OPEN, Kev: 'true' })),
    [navigate, filter],
  );
  const option = useMemo(
    () => (query.data ? kevExposureOption(query.data, { theme }) : null),
    [query.data, theme],
  );
  const days = query.data?.Days ?? [];
  const last = days.at(-1);
  return (
    <ChartCard
      title="KEV exposure over time"
      description="Open findings of known exploited vulnerabilities at the end of each day."
      empty={query.data ? noHistory(query.data) : false}
      chart={withTrends(
        query,
        () =>
          option ? (
            <EChart
              option={option}
              height={180}
              label={`Open KEV findings over time; on ${last?.Date ?? 'the last day'}: ${last?.KevOpen ?? 0}.`}
              onItemClick={onClick}
            />
          ) : null,
        180,
      )}
      table={
        <Table.ScrollContainer minWidth={240} mah={200}>
          <Table striped withTableBorder stickyHeader fz="sm" verticalSpacing={2}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Day</Table.Th>
                <Table.Th ta="right">Open KEV findings</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {[...days].reverse().map((d) => (
                <Table.Tr key={d.Date}>
                  <Table.Th scope="row">{d.Date}</Table.Th>
                  <Table.Td ta="right">{d.KevOpen}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      }
    />
  );
}

export interface TrendCardProps {
  query: TrendQuery;
  filter: DashboardFilter;
  theme: ChartTheme;
}
