import {
  Anchor,
  Badge,
  Button,
  Card,
  Group,
  Paper,
  SegmentedControl,
  SimpleGrid,
  Stack,
  Table,
  Text,
  Title,
} from '@mantine/core';
import { useDisclosure, useDocumentTitle } from '@mantine/hooks';
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import {
  type DiscoveryHost,
  type DiscoveryScan,
  type HostStatus,
  isActive,
  useDeleteScan,
  useDiscoveryScan,
  useReportHosts,
  useScanRuns,
  useScanTemplates,
} from '../../api/discovery';
import { useSignedInSession } from '../../api/session';
import { hasRole } from '../../api/types';
import { ConfirmModal } from '../../components/ConfirmModal';
import { DateTime } from '../../components/DateTime';
import { Fact } from '../../components/Fact';
import { LoadMore } from '../../components/LoadMore';
import { PageSkeleton, TableSkeleton } from '../../components/PageSkeleton';
import { QueryError } from '../../components/QueryError';
import { IconArrowLeft, IconPencil, IconTrash } from '../../icons';
import { counted } from '../../labels';
import { RefusedAddresses } from '../scans/ScanParts';
import { RunButtons, RunProgress } from './DiscoveryScansPage';
import { RunStateBadge } from './RunStateBadge';
import { ScanFormModal } from './ScanFormModal';

export default function DiscoveryScanPage() {
  const { id = '' } = useParams();
  const scan = useDiscoveryScan(id);
  useDocumentTitle(`${scan.data?.Name ?? 'Discovery scan'} · Rampart`);
  return (
    <Stack gap="lg">
      <Anchor component={Link} to="/discovery" size="sm">
        <Group gap={4} component="span">
          <IconArrowLeft size={14} aria-hidden />
          All discovery scans
        </Group>
      </Anchor>
      {scan.isPending ? (
        <PageSkeleton />
      ) : scan.isError ? (
        <QueryError error={scan.error} onRetry={() => scan.refetch()} />
      ) : (
        <ScanView scan={scan.data} />
      )}
    </Stack>
  );
}

function ScanView({ scan }: { scan: DiscoveryScan }) {
  const role = useSignedInSession().User.Role;
  const templates = useScanTemplates().data?.Items ?? [];
  const [editOpened, edit] = useDisclosure(false);
  const [deleteOpened, confirmDelete] = useDisclosure(false);
  const remove = useDeleteScan();
  const navigate = useNavigate();
  const active = isActive(scan.RunState);
  const run = scan.LastRun;
  const [runId, setRunId] = useState<string | null>(null);
  const shownRun = runId ?? run?.Id ?? null;

  return (
    <Stack gap="lg">
      <Group justify="space-between" align="flex-start">
        <div>
          <Group gap="sm">
            <Title order={1}>{scan.Name}</Title>
            <div aria-live="polite">
              <RunStateBadge state={scan.RunState} title={run?.Error} />
            </div>
          </Group>
          {run && active && (
            <Text size="sm" c="dimmed" aria-live="polite" data-testid="run-progress">
              {run.Progress.Done.toLocaleString()} of {counted(run.Progress.Total, 'address', 'addresses')}{' '}
              probed, {counted(run.Progress.Found, 'host')} found
            </Text>
          )}
          <RunProgress scan={scan} />
          {run?.State === 'Failed' && run.Error && (
            <Text size="sm" c="red">
              {run.Error}
            </Text>
          )}
          {run && <RefusedAddresses refused={run.Refused} />}
        </div>
        <Group gap="xs">
          {hasRole(role, 'Analyst') && <RunButtons scan={scan} />}
          {hasRole(role, 'Manager') && (
            <>
              <Button size="xs" variant="default" leftSection={<IconPencil size={14} />} onClick={edit.open}>
                Edit
              </Button>
              <Button
                size="xs"
                variant="default"
                color="red"
                leftSection={<IconTrash size={14} />}
                onClick={confirmDelete.open}
                disabled={active}
              >
                Delete
              </Button>
            </>
          )}
        </Group>
      </Group>

      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <Card withBorder radius="md">
          <Stack gap={6} component="dl" m={0}>
            <Fact label="Targets">
              <span style={{ fontFamily: 'var(--mantine-font-family-monospace)' }}>
                {scan.ScanTargets.map((t) => (t.Name ? `${t.Range} (${t.Name})` : t.Range)).join(', ')}
              </span>
            </Fact>
            <Fact label="Exclusions">{scan.Exclusions.length ? scan.Exclusions.join(', ') : 'None'}</Fact>
            <Fact label="Template">
              {templates.find((t) => t.Id === scan.TemplateId)?.Name ?? scan.TemplateId}
            </Fact>
            <Fact label="Scan node">{scan.ScanNodeId ?? 'Any node serving discovery'}</Fact>
            <Fact label="Schedule">
              {scan.Schedule.SchedulingMode === 'None' ? (
                'On demand only'
              ) : (
                <>
                  {scan.Schedule.SchedulingMode}
                  {scan.NextRunAt && (
                    <>
                      , next <DateTime value={scan.NextRunAt} />
                    </>
                  )}
                </>
              )}
            </Fact>
            <Fact label="Last completed">
              {scan.ScanLastCompleted ? <DateTime value={scan.ScanLastCompleted} /> : 'Never'}
            </Fact>
          </Stack>
        </Card>
        <RunHistory scan={scan} selected={shownRun} onSelect={setRunId} active={active} />
      </SimpleGrid>

      <HostsReport scanId={scan.Id} runId={shownRun} active={active && shownRun === run?.Id} />

      <ScanFormModal opened={editOpened} onClose={edit.close} scan={scan} />
      <ConfirmModal
        opened={deleteOpened}
        onClose={confirmDelete.close}
        title="Delete discovery scan"
        confirmLabel="Delete"
        confirmColor="red"
        pending={remove.isPending}
        error={remove.error}
        onConfirm={() => remove.mutate(scan.Id, { onSuccess: () => navigate('/discovery') })}
      >
        <Text size="sm">Delete “{scan.Name}” and its reports? The assets it found stay.</Text>
      </ConfirmModal>
    </Stack>
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
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Started</Table.Th>
              <Table.Th>State</Table.Th>
              <Table.Th ta="right">Hosts</Table.Th>
            </Table.Tr>
          </Table.Thead>
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
        <Paper withBorder p="lg" ta="center">
          <Text size="sm" c="dimmed">
            {active ? 'No host found yet.' : 'No hosts.'}
          </Text>
        </Paper>
      ) : (
        <>
          <Table.ScrollContainer minWidth={760}>
            <Table striped verticalSpacing={6} horizontalSpacing="sm" fz="sm" data-testid="hosts-table">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Address</Table.Th>
                  <Table.Th>Host name</Table.Th>
                  <Table.Th>Open ports</Table.Th>
                  <Table.Th>MAC address</Table.Th>
                  <Table.Th>OS guess</Table.Th>
                  <Table.Th>Status</Table.Th>
                  <Table.Th>First seen</Table.Th>
                </Table.Tr>
              </Table.Thead>
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
