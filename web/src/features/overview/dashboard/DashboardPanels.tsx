import {
  Anchor,
  Badge,
  Card,
  Group,
  SimpleGrid,
  Stack,
  Table,
  Text,
  Title,
  useComputedColorScheme,
} from '@mantine/core';
import { useCallback, useMemo } from 'react';
import { Link, useNavigate } from 'react-router';
import {
  ageingOption,
  type ChartTheme,
  mttrVsSlaOption,
  slaComplianceOption,
} from '../../../../../src/charts/index.js';
import type { Dashboard, DashboardFilter } from '../../../api/dashboard';
import { SEVERITIES } from '../../../api/findings';
import type { Severity } from '../../../api/types';
import { SeverityBadge } from '../../../components/Badges';
import { DateTime } from '../../../components/DateTime';
import { ImportStateBadge } from '../../imports/ImportStateBadge';
import { RunStateBadge } from '../../scans/RunStateBadge';
import { findingsLink, OPEN } from '../links';
import { ChartCard } from './ChartCard';
import { type ChartItem, EChart } from './EChart';
import { KevOverTime, NewVsFixedCard, OpenOverTimeCard, useDashboardTrends } from './TrendPanels';

const number = new Intl.NumberFormat('en', { maximumFractionDigits: 1 });
const fmt = (n: number | null | undefined, suffix = '') =>
  n === null || n === undefined ? '—' : `${number.format(n)}${suffix}`;

/** Every panel of the dashboard: drawn from GET /dashboard (now) and GET /trends (over time). */
export default function DashboardPanels({ data, filter }: { data: Dashboard; filter: DashboardFilter }) {
  const theme: ChartTheme = useComputedColorScheme('light', { getInitialValueInEffect: false });
  const trends = useDashboardTrends(filter);
  const trend = { query: trends, filter, theme };
  return (
    <Stack gap="md">
      <Summary data={data} filter={filter} />
      <SimpleGrid cols={{ base: 1, lg: 2 }} spacing="md">
        <OpenOverTimeCard {...trend} />
        <NewVsFixedCard {...trend} />
        <SlaPanel data={data} filter={filter} theme={theme} />
        <MttrPanel data={data} filter={filter} theme={theme} />
        <AgeingPanel data={data} filter={filter} theme={theme} />
        <Stack gap="md">
          <KevPanel data={data} filter={filter} />
          <KevOverTime {...trend} />
        </Stack>
      </SimpleGrid>
      <SimpleGrid cols={{ base: 1, lg: 2 }} spacing="md">
        <RiskiestAssets data={data} filter={filter} />
        <RiskiestVulnerabilities data={data} filter={filter} />
        <LastScans data={data} />
        <LastImports data={data} />
      </SimpleGrid>
    </Stack>
  );
}

interface PanelProps {
  data: Dashboard;
  filter: DashboardFilter;
}

/** Open findings by severity and past SLA: the figures read first, each a link to its list. */
function Summary({ data, filter }: PanelProps) {
  const tile = (label: string, value: string, to: string, badge?: React.ReactNode, ariaLabel?: string) => (
    <Anchor
      key={label}
      component={Link}
      to={to}
      underline="never"
      c="inherit"
      aria-label={ariaLabel ?? `${label}: ${value}`}
    >
      <Stack
        gap={4}
        align="center"
        py="xs"
        style={{
          borderRadius: 'var(--mantine-radius-sm)',
          border: '1px solid var(--mantine-color-default-border)',
        }}
      >
        <Text fw={700} size="xl" style={{ fontVariantNumeric: 'tabular-nums' }}>
          {value}
        </Text>
        {badge ?? (
          <Text size="xs" c="dimmed">
            {label}
          </Text>
        )}
      </Stack>
    </Anchor>
  );
  return (
    <Card withBorder padding="md" radius="md" component="section" aria-labelledby="open-title">
      <Group justify="space-between" mb="xs">
        <Title order={2} size="h5" id="open-title">
          Open findings
        </Title>
        <Text size="xs" c="dimmed">
          Open and Reopened, by severity · <DateTime value={data.GeneratedAt} />
        </Text>
      </Group>
      <SimpleGrid cols={{ base: 3, xs: 4, md: 8 }} spacing="xs">
        {SEVERITIES.map((s) =>
          tile(
            `${s} open`,
            String(data.Open[s]),
            findingsLink(filter, { State: OPEN, Severity: s }),
            <SeverityBadge severity={s} />,
            `${s}: ${data.Open[s]} open`,
          ),
        )}
        {tile(
          'Past SLA',
          String(data.Open.PastSla),
          findingsLink(filter, { State: OPEN, DueBefore: data.GeneratedAt }),
        )}
        {tile(
          'Known exploited',
          String(data.Kev.OpenFindings),
          findingsLink(filter, { State: OPEN, Kev: 'true' }),
        )}
        {tile(
          'Within SLA',
          fmt(data.SlaCompliance.Overall.Percent, ' %'),
          findingsLink(filter, { State: OPEN, DueBefore: data.GeneratedAt }),
        )}
      </SimpleGrid>
    </Card>
  );
}

function SlaPanel({ data, filter, theme }: PanelProps & { theme: ChartTheme }) {
  const navigate = useNavigate();
  const sla = data.SlaCompliance;
  const option = useMemo(() => slaComplianceOption(sla, { theme }), [sla, theme]);
  const links = {
    open: findingsLink(filter, { State: OPEN, DueBefore: data.GeneratedAt }),
    fixed: findingsLink(filter, { State: 'Fixed', FixedAfter: data.WindowStart }),
  };
  const onItemClick = useCallback(
    (item: ChartItem) => navigate(item.name.startsWith('Fixed') ? links.fixed : links.open),
    [navigate, links.fixed, links.open],
  );
  const rows = [
    { name: 'Open now', figure: sla.Open, to: links.open, linkText: 'past SLA' },
    { name: `Fixed (${data.WindowDays} days)`, figure: sla.Fixed, to: links.fixed, linkText: 'fixed' },
    { name: 'Overall', figure: sla.Overall },
  ];
  return (
    <ChartCard
      title="SLA compliance"
      description={`Open findings not past their due date; findings fixed in the last ${data.WindowDays} days by it.`}
      empty={sla.Overall.WithSla === 0 && 'No finding has a due date yet.'}
      chart={
        <EChart
          option={option}
          height={200}
          label={`SLA compliance: ${rows.map((r) => `${r.name} ${fmt(r.figure.Percent, ' %')}`).join(', ')}.`}
          onItemClick={onItemClick}
        />
      }
      table={
        <Table striped withTableBorder fz="sm">
          <Table.Thead>
            <Table.Tr>
              <Table.Th />
              <Table.Th ta="right">With an SLA</Table.Th>
              <Table.Th ta="right">Within SLA</Table.Th>
              <Table.Th ta="right">Per cent</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map((r) => (
              <Table.Tr key={r.name}>
                <Table.Th scope="row">{r.name}</Table.Th>
                <Table.Td ta="right">{r.figure.WithSla}</Table.Td>
                <Table.Td ta="right">{r.figure.WithinSla}</Table.Td>
                <Table.Td ta="right">
                  {r.to ? (
                    <Anchor
                      component={Link}
                      to={r.to}
                      size="sm"
                      aria-label={`${r.name}: list the ${r.linkText} findings`}
                    >
                      {fmt(r.figure.Percent, ' %')}
                    </Anchor>
                  ) : (
                    fmt(r.figure.Percent, ' %')
                  )}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      }
    />
  );
}

function MttrPanel({ data, filter, theme }: PanelProps & { theme: ChartTheme }) {
  const navigate = useNavigate();
  const option = useMemo(() => mttrVsSlaOption(data.Mttr, { theme }), [data.Mttr, theme]);
  const linkOf = useCallback(
    (severity: string) =>
      findingsLink(filter, { State: 'Fixed', Severity: severity, FixedAfter: data.WindowStart }),
    [filter, data.WindowStart],
  );
  const onItemClick = useCallback((item: ChartItem) => navigate(linkOf(item.name)), [navigate, linkOf]);
  const fixed = data.Mttr.filter((m) => m.Count > 0);
  return (
    <ChartCard
      title="Time to remediate"
      description={`Mean days from first seen to fixed, findings fixed in the last ${data.WindowDays} days, against the SLA.`}
      empty={fixed.length === 0 && `No finding was fixed in the last ${data.WindowDays} days.`}
      chart={
        <EChart
          option={option}
          label={`Mean days to remediate: ${data.Mttr.map((m) => `${m.Severity} ${fmt(m.MeanDays)} (SLA ${fmt(m.SlaDays)})`).join(', ')}.`}
          onItemClick={onItemClick}
        />
      }
      table={
        <Table striped withTableBorder fz="sm">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Severity</Table.Th>
              <Table.Th ta="right">Fixed</Table.Th>
              <Table.Th ta="right">Mean days</Table.Th>
              <Table.Th ta="right">Median days</Table.Th>
              <Table.Th ta="right">SLA days</Table.Th>
              <Table.Th ta="right">Within SLA</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {data.Mttr.map((m) => (
              <Table.Tr key={m.Severity}>
                <Table.Th scope="row">
                  <SeverityBadge severity={m.Severity} />
                </Table.Th>
                <Table.Td ta="right">
                  <Anchor
                    component={Link}
                    to={linkOf(m.Severity)}
                    size="sm"
                    aria-label={`${m.Severity}: ${m.Count} fixed`}
                  >
                    {m.Count}
                  </Anchor>
                </Table.Td>
                <Table.Td ta="right">{fmt(m.MeanDays)}</Table.Td>
                <Table.Td ta="right">{fmt(m.MedianDays)}</Table.Td>
                <Table.Td ta="right">{fmt(m.SlaDays)}</Table.Td>
                <Table.Td ta="right">{m.WithinSla}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      }
    />
  );
}

function AgeingPanel({ data, filter, theme }: PanelProps & { theme: ChartTheme }) {
  const navigate = useNavigate();
  const option = useMemo(() => ageingOption(data.Ageing, { theme }), [data.Ageing, theme]);
  const linkOf = useCallback(
    (bucket: Dashboard['Ageing'][number], severity?: string) =>
      findingsLink(filter, {
        State: OPEN,
        Severity: severity,
        FirstSeenAfter: bucket.FirstSeenAfter ?? undefined,
        FirstSeenBefore: bucket.FirstSeenBefore ?? undefined,
      }),
    [filter],
  );
  const onItemClick = useCallback(
    (item: ChartItem) => {
      const bucket = data.Ageing[item.dataIndex];
      if (bucket) navigate(linkOf(bucket, item.seriesName));
    },
    [navigate, linkOf, data.Ageing],
  );
  return (
    <ChartCard
      title="Ageing of open findings"
      description="Days since first seen, by severity."
      empty={data.Open.Total === 0 && 'No open findings.'}
      chart={
        <EChart
          option={option}
          label={`Open findings by age: ${data.Ageing.map((b) => `${b.Label} days ${b.Total}`).join(', ')}.`}
          onItemClick={onItemClick}
        />
      }
      table={
        <Table striped withTableBorder fz="sm">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Days open</Table.Th>
              {SEVERITIES.map((s) => (
                <Table.Th key={s} ta="right">
                  {s}
                </Table.Th>
              ))}
              <Table.Th ta="right">All</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {data.Ageing.map((b) => (
              <Table.Tr key={b.Label}>
                <Table.Th scope="row">{b.Label}</Table.Th>
                {SEVERITIES.map((s: Severity) => (
                  <Table.Td key={s} ta="right">
                    <Anchor
                      component={Link}
                      to={linkOf(b, s)}
                      size="sm"
                      aria-label={`${s}, ${b.Label} days: ${b.Counts[s]}`}
                    >
                      {b.Counts[s]}
                    </Anchor>
                  </Table.Td>
                ))}
                <Table.Td ta="right">
                  <Anchor
                    component={Link}
                    to={linkOf(b)}
                    size="sm"
                    aria-label={`${b.Label} days: ${b.Total}`}
                  >
                    {b.Total}
                  </Anchor>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      }
    />
  );
}

function KevPanel({ data, filter }: PanelProps) {
  const kev = data.Kev;
  const rows = [
    {
      label: 'Open KEV findings',
      value: kev.OpenFindings,
      to: findingsLink(filter, { State: OPEN, Kev: 'true' }),
    },
    { label: 'Assets affected', value: kev.AssetsAffected },
    {
      label: 'Past their due date',
      value: kev.Overdue,
      to: findingsLink(filter, { State: OPEN, Kev: 'true', DueBefore: data.GeneratedAt }),
    },
  ];
  return (
    <Card withBorder padding="md" radius="md" component="section" aria-labelledby="kev-title">
      <Title order={2} size="h5" id="kev-title">
        Known exploited vulnerabilities
      </Title>
      <Text size="xs" c="dimmed" mb="sm">
        Open findings of vulnerabilities in CISA’s KEV catalogue.
      </Text>
      <SimpleGrid cols={3} spacing="xs">
        {rows.map((r) => (
          <Stack key={r.label} gap={2} align="center">
            <Text
              fw={700}
              size="xl"
              c={r.value > 0 && r.to ? 'red' : undefined}
              style={{ fontVariantNumeric: 'tabular-nums' }}
            >
              {r.to ? (
                <Anchor component={Link} to={r.to} inherit c="inherit" aria-label={`${r.label}: ${r.value}`}>
                  {r.value}
                </Anchor>
              ) : (
                r.value
              )}
            </Text>
            <Text size="xs" c="dimmed" ta="center">
              {r.label}
            </Text>
          </Stack>
        ))}
      </SimpleGrid>
    </Card>
  );
}

function TableCard({ title, id, children }: { title: string; id: string; children: React.ReactNode }) {
  return (
    <Card withBorder padding="md" radius="md" component="section" aria-labelledby={id}>
      <Title order={2} size="h5" id={id} mb="xs">
        {title}
      </Title>
      {children}
    </Card>
  );
}

const Empty = ({ children }: { children: React.ReactNode }) => (
  <Text size="sm" c="dimmed" py="md" ta="center">
    {children}
  </Text>
);

function RiskiestAssets({ data, filter }: PanelProps) {
  return (
    <TableCard title="Riskiest assets" id="riskiest-assets-title">
      {data.RiskiestAssets.length === 0 ? (
        <Empty>No asset has an open finding.</Empty>
      ) : (
        <Table.ScrollContainer minWidth={420}>
          <Table striped fz="sm" verticalSpacing={4}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Asset</Table.Th>
                <Table.Th ta="right">Open</Table.Th>
                <Table.Th ta="right">Critical</Table.Th>
                <Table.Th ta="right">High</Table.Th>
                <Table.Th ta="right" title="Sum of the risk scores of its open findings">
                  Risk
                </Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {data.RiskiestAssets.map((a) => (
                <Table.Tr key={a.AssetId}>
                  <Table.Td>
                    <Anchor component={Link} to={`/assets/${a.AssetId}`} size="sm">
                      {a.Name}
                    </Anchor>
                  </Table.Td>
                  <Table.Td ta="right">
                    <Anchor
                      component={Link}
                      to={findingsLink(filter, { State: OPEN, AssetId: a.AssetId })}
                      size="sm"
                      aria-label={`${a.Name}: ${a.OpenFindings} open findings`}
                    >
                      {a.OpenFindings}
                    </Anchor>
                  </Table.Td>
                  <Table.Td ta="right">{a.Critical}</Table.Td>
                  <Table.Td ta="right">{a.High}</Table.Td>
                  <Table.Td ta="right">{fmt(a.RiskExposure)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </TableCard>
  );
}

function RiskiestVulnerabilities({ data, filter }: PanelProps) {
  return (
    <TableCard title="Riskiest vulnerabilities" id="riskiest-vulnerabilities-title">
      {data.RiskiestVulnerabilities.length === 0 ? (
        <Empty>No open findings.</Empty>
      ) : (
        <Table.ScrollContainer minWidth={480}>
          <Table striped fz="sm" verticalSpacing={4}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Vulnerability</Table.Th>
                <Table.Th>Severity</Table.Th>
                <Table.Th ta="right">Assets</Table.Th>
                <Table.Th ta="right">Risk</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {data.RiskiestVulnerabilities.map((v) => (
                <Table.Tr key={v.VulnerabilityId}>
                  <Table.Td>
                    <Anchor
                      component={Link}
                      to={findingsLink(filter, { State: OPEN, VulnerabilityId: v.VulnerabilityId })}
                      size="sm"
                      lineClamp={2}
                    >
                      {v.Title}
                    </Anchor>
                    <Group gap={4}>
                      {v.CveIds[0] && (
                        <Text size="xs" c="dimmed" ff="monospace">
                          {v.CveIds[0]}
                        </Text>
                      )}
                      {v.Kev && (
                        <Badge size="xs" color="red" variant="outline">
                          KEV
                        </Badge>
                      )}
                    </Group>
                  </Table.Td>
                  <Table.Td>
                    <SeverityBadge severity={v.Severity} />
                  </Table.Td>
                  <Table.Td ta="right">{v.AssetsAffected}</Table.Td>
                  <Table.Td ta="right">{fmt(v.RiskExposure)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </TableCard>
  );
}

const SCAN_PATHS: Record<Dashboard['LastScans'][number]['Kind'], string> = {
  Discovery: '/discovery',
  System: '/system-scans',
  Web: '/web-scans',
};

function LastScans({ data }: { data: Dashboard }) {
  return (
    <TableCard title="Last scans" id="last-scans-title">
      {data.LastScans.length === 0 ? (
        <Empty>No scan has run yet.</Empty>
      ) : (
        <Table.ScrollContainer minWidth={420}>
          <Table striped fz="sm" verticalSpacing={4}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Scan</Table.Th>
                <Table.Th>Kind</Table.Th>
                <Table.Th>State</Table.Th>
                <Table.Th>Queued</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {data.LastScans.map((r) => (
                <Table.Tr key={r.RunId}>
                  <Table.Td>
                    <Anchor component={Link} to={`${SCAN_PATHS[r.Kind]}/${r.ScanId}`} size="sm">
                      {r.ScanName}
                    </Anchor>
                  </Table.Td>
                  <Table.Td>{r.Kind}</Table.Td>
                  <Table.Td>
                    <RunStateBadge state={r.State} title={r.Error} />
                  </Table.Td>
                  <Table.Td>
                    <DateTime value={r.QueuedAt} />
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </TableCard>
  );
}

function LastImports({ data }: { data: Dashboard }) {
  return (
    <TableCard title="Last imports" id="last-imports-title">
      {data.LastImports.length === 0 ? (
        <Empty>Nothing imported yet.</Empty>
      ) : (
        <Table.ScrollContainer minWidth={420}>
          <Table striped fz="sm" verticalSpacing={4}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Import</Table.Th>
                <Table.Th>State</Table.Th>
                <Table.Th ta="right">New</Table.Th>
                <Table.Th ta="right">Fixed</Table.Th>
                <Table.Th>When</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {data.LastImports.map((i) => (
                <Table.Tr key={i.Id}>
                  <Table.Td>
                    <Anchor component={Link} to={`/imports/${i.Id}`} size="sm" lineClamp={1}>
                      {i.FileName ?? i.ScopeName ?? i.Format ?? 'Import'}
                    </Anchor>
                  </Table.Td>
                  <Table.Td>
                    <ImportStateBadge state={i.State} attention={i.Attention} />
                  </Table.Td>
                  <Table.Td ta="right">{i.Counts.New ?? 0}</Table.Td>
                  <Table.Td ta="right">{i.Counts.Fixed ?? 0}</Table.Td>
                  <Table.Td>
                    <DateTime value={i.CreatedAt} />
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </TableCard>
  );
}
