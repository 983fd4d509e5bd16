import {
  Anchor,
  Badge,
  Card,
  Group,
  Progress,
  SegmentedControl,
  SimpleGrid,
  Stack,
  Table,
  Text,
  Title,
} from '@mantine/core';
import { type ReactNode, useState } from 'react';
import { Link } from 'react-router';
import {
  type DiscoveryHost,
  type DiscoveryScan,
  type HostStatus,
  useReportHosts,
  useScanRuns,
} from '../../api/discovery';
import { isActive } from '../../api/scans';
import { DateTime } from '../../components/DateTime';
import { EmptyNote } from '../../components/EmptyState';
import { LoadMore } from '../../components/LoadMore';
import { TableSkeleton } from '../../components/PageSkeleton';
import { QueryError } from '../../components/QueryError';
import { TableHead } from '../../components/TableHead';
import { counted } from '../../labels';
import { RefusedAddresses } from '../scans/RefusedAddresses';
import { RunStateBadge } from '../scans/RunStateBadge';

/** The discovery scan page's body: the facts beside the runs, then the hosts the chosen run found. */
export function DiscoveryRuns({ scan, facts }: { scan: DiscoveryScan; facts: ReactNode }) {
  const active = isActive(scan.RunState);
  const run = scan.LastRun;
  const [runId, setRunId] = useState<string | null>(null);
  const shownRun = runId ?? run?.Id ?? null;
  return (
    <>
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        {facts}
        <RunHistory scan={scan} selected={shownRun} onSelect={setRunId} active={active} />
      </SimpleGrid>
      <HostsReport scanId={scan.Id} runId={shownRun} active={active && shownRun === run?.Id} />
    </>
  );
}

/** Under the scan's title while it runs: how far it got; after a failure, why; what it refused. */
export function DiscoveryProgress({ scan }: { scan: DiscoveryScan }) {
  const run = scan.LastRun;
  if (!run) return null;
  return (
    <>
      {isActive(scan.RunState) && (
        <Text size="sm" c="dimmed" aria-live="polite" data-testid="run-progress">
          {run.Progress.Done.toLocaleString()} of {counted(run.Progress.Total, 'address', 'addresses')}{' '}
          probed, {counted(run.Progress.Found, 'host')} found
        </Text>
      )}
      <RunProgress scan={scan} />
      {run.State === 'Failed' && run.Error && (
        <Text size="sm" c="red">
          {run.Error}
        </Text>
      )}
      <RefusedAddresses refused={run.Refused} />
    </>
  );
}

/** A running scan's progress bar, in the list and under the scan's title. */
export function RunProgress({ scan }: { scan: DiscoveryScan }) {
  const run = scan.LastRun;
  if (!run || !isActive(scan.RunState) || run.Progress.Total === 0) return null;
  const value = Math.round((run.Progress.Done / run.Progress.Total) * 100);
  return (
    <Progress
      value={value}
      size="sm"
      mt={4}
      aria-label={`${run.Progress.Done.toLocaleString()} of ${counted(run.Progress.Total, 'address', 'addresses')} probed`}
      animated
    />
  );
}

function RunHistory({
  scan,
  selected,
  onSelect,
  active,
}: {
  scan: DiscoveryScan;
  selected: string | null;
  onSelect: (id: string) => void;
  active: boolean;
}) {
  const runs = useScanRuns(scan.Id, active);
  return (
    <Card withBorder radius="md">
      <Title order={2} size="h5" mb="xs">
        Runs
      </Title>
      {runs.isPending ? (
        <TableSkeleton rows={2} />
      ) : runs.isError ? (
        <QueryError error={runs.error} onRetry={() => runs.refetch()} />
      ) : runs.data.Items.length === 0 ? (
        <Text size="sm" c="dimmed">
          Not run yet.
        </Text>
      ) : (
        <Table fz="sm" verticalSpacing={4} highlightOnHover data-testid="runs-table">
          <TableHead columns={['Started', 'State', { label: 'Hosts', ta: 'right' }]} />
          <Table.Tbody>
            {runs.data.Items.map((r) => (
              <Table.Tr
                key={r.Id}
                onClick={() => onSelect(r.Id)}
                style={{ cursor: 'pointer' }}
                bg={r.Id === selected ? 'var(--mantine-color-blue-light)' : undefined}
                aria-selected={r.Id === selected}
              >
                <Table.Td>
                  {r.StartedAt ? <DateTime value={r.StartedAt} /> : <DateTime value={r.CreatedAt} />}
                </Table.Td>
                <Table.Td>
                  <RunStateBadge state={r.State} title={r.Error} />
                </Table.Td>
                <Table.Td ta="right">{r.Progress.Found.toLocaleString()}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Card>
  );
}

const STATUS_COLORS: Record<HostStatus, string> = { New: 'green', Seen: 'gray', Gone: 'red', Found: 'blue' };

function HostsReport({ scanId, runId, active }: { scanId: string; runId: string | null; active: boolean }) {
  const [status, setStatus] = useState<HostStatus | 'All'>('All');
  const hosts = useReportHosts(scanId, runId, status === 'All' ? null : status, active);
  if (!runId) return null;
  const first = hosts.data?.pages[0];
  const rows = hosts.data?.pages.flatMap((p) => p.Items) ?? [];
  return (
    <Stack gap="sm" component="section" aria-labelledby="hosts-title">
      <Group justify="space-between">
        <Title order={2} size="h4" id="hosts-title">
          Hosts found
        </Title>
        <SegmentedControl
          size="xs"
          value={status}
          onChange={(v) => setStatus(v as HostStatus | 'All')}
          data={[
            { value: 'All', label: 'All' },
            { value: 'New', label: `New${first ? ` ${first.Counts.New}` : ''}` },
            { value: 'Seen', label: `Seen${first ? ` ${first.Counts.Seen}` : ''}` },
            { value: 'Gone', label: `Gone${first ? ` ${first.Counts.Gone}` : ''}` },
          ]}
        />
      </Group>
      {hosts.isPending ? (
        <TableSkeleton rows={4} />
      ) : hosts.isError ? (
        <QueryError error={hosts.error} onRetry={() => hosts.refetch()} />
      ) : rows.length === 0 ? (
        <EmptyNote>{active ? 'No host found yet.' : 'No hosts.'}</EmptyNote>
      ) : (
        <>
          <Table.ScrollContainer minWidth={760}>
            <Table striped verticalSpacing={6} horizontalSpacing="sm" fz="sm" data-testid="hosts-table">
              <TableHead
                columns={[
                  'Address',
                  'Host name',
                  'Open ports',
                  'MAC address',
                  'OS guess',
                  'Status',
                  'First seen',
                ]}
              />
              <Table.Tbody>
                {rows.map((h) => (
                  <HostRow key={h.IpAddress} host={h} />
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
          <LoadMore query={hosts} shown={rows.length} total={first?.TotalCount} what="hosts" />
        </>
      )}
    </Stack>
  );
}

function HostRow({ host }: { host: DiscoveryHost }) {
  return (
    <Table.Tr>
      <Table.Td style={{ fontFamily: 'var(--mantine-font-family-monospace)' }}>
        {host.AssetId ? (
          <Anchor component={Link} to={`/assets/${host.AssetId}`} size="sm">
            {host.IpAddress}
          </Anchor>
        ) : (
          host.IpAddress
        )}
      </Table.Td>
      <Table.Td>{host.Hostname ?? '—'}</Table.Td>
      <Table.Td>{host.OpenPorts.length ? host.OpenPorts.join(', ') : '—'}</Table.Td>
      <Table.Td style={{ fontFamily: 'var(--mantine-font-family-monospace)' }}>
        {host.MacAddress ?? '—'}
      </Table.Td>
      <Table.Td>{host.OperatingSystem ?? '—'}</Table.Td>
      <Table.Td>
        <Badge color={STATUS_COLORS[host.Status]} variant="light">
          {host.Status}
        </Badge>
      </Table.Td>
      <Table.Td style={{ whiteSpace: 'nowrap' }}>
        {host.FirstSeen ? <DateTime value={host.FirstSeen} /> : '—'}
      </Table.Td>
    </Table.Tr>
  );
}
