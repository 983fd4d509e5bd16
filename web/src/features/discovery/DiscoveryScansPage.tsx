import { Alert, Anchor, Button, Group, Paper, Progress, Stack, Table, Text, Title } from '@mantine/core';
import { useDisclosure, useDocumentTitle } from '@mantine/hooks';
import { notifications } from '@mantine/notifications';
import { useQuery } from '@tanstack/react-query';
import { Link, useNavigate } from 'react-router';
import { api, errorMessage } from '../../api/client';
import {
  type DiscoveryScan,
  isActive,
  useDiscoveryScans,
  useStartScan,
  useStopScan,
} from '../../api/discovery';
import { useSignedInSession } from '../../api/session';
import { hasRole, type ResponseOf } from '../../api/types';
import { DateTime } from '../../components/DateTime';
import { LoadMore } from '../../components/LoadMore';
import { TableSkeleton } from '../../components/PageSkeleton';
import { QueryError } from '../../components/QueryError';
import { IconInfoCircle, IconPlayerPlay, IconPlayerStop, IconPlus } from '../../icons';
import { counted } from '../../labels';
import { RunStateBadge } from './RunStateBadge';
import { ScanFormModal } from './ScanFormModal';

/** Whether the organisation allows any target: until it does, nothing can be scanned. */
function useAllowsAnything() {
  return useQuery({
    queryKey: ['allowed-targets', 'list'],
    queryFn: ({ signal }) => api<ResponseOf<'listAllowedTargets'>>('/allowedtargets', { signal }),
    select: (page) => page.Items.some((t) => t.Kind === 'Allowed'),
  });
}

export default function DiscoveryScansPage() {
  useDocumentTitle('Discovery scans · Rampart');
  const role = useSignedInSession().User.Role;
  const canEdit = hasRole(role, 'Manager');
  const canRun = hasRole(role, 'Analyst');
  const [formOpened, form] = useDisclosure(false);
  const navigate = useNavigate();
  const allows = useAllowsAnything();

  return (
    <Stack gap="lg">
      <Group justify="space-between" align="flex-end">
        <div>
          <Title order={1}>Discovery scans</Title>
          <Text size="sm" c="dimmed">
            Find the live hosts in your address ranges. Each run marks the hosts that are new or gone, and
            adds what it finds to Assets.
          </Text>
        </div>
        {canEdit && (
          <Button leftSection={<IconPlus size={16} />} onClick={form.open}>
            New scan
          </Button>
        )}
      </Group>
      {allows.data === false && (
        <Alert color="yellow" icon={<IconInfoCircle size={18} />} title="Nothing can be scanned yet">
          Scans only go to the ranges an Admin has allowed.{' '}
          <Anchor component={Link} to="/settings#allowed-targets">
            Allow a range in Settings
          </Anchor>
          .
        </Alert>
      )}
      <ScanList canRun={canRun} />
      <ScanFormModal
        opened={formOpened}
        onClose={form.close}
        onSaved={(s) => navigate(`/discovery/${s.Id}`)}
      />
    </Stack>
  );
}

function ScanList({ canRun }: { canRun: boolean }) {
  const scans = useDiscoveryScans();
  if (scans.isPending) return <TableSkeleton rows={3} />;
  if (scans.isError && !scans.data) return <QueryError error={scans.error} onRetry={() => scans.refetch()} />;
  const rows = scans.data.pages.flatMap((p) => p.Items);
  if (rows.length === 0)
    return (
      <Paper withBorder radius="md" p="xl" ta="center">
        <Text fw={600}>No discovery scans yet</Text>
        <Text size="sm" c="dimmed" mt={4}>
          A discovery scan probes a range for live hosts with TCP connects, from the built-in scan node or one
          you enrol.
        </Text>
      </Paper>
    );
  return (
    <Stack gap="sm">
      <Table.ScrollContainer minWidth={820}>
        <Table striped highlightOnHover verticalSpacing={6} horizontalSpacing="sm" fz="sm">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Name</Table.Th>
              <Table.Th>Targets</Table.Th>
              <Table.Th>State</Table.Th>
              <Table.Th ta="right">Hosts</Table.Th>
              <Table.Th>Last completed</Table.Th>
              {canRun && <Table.Th aria-label="Actions" />}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map((scan) => (
              <ScanRow key={scan.Id} scan={scan} canRun={canRun} />
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      <LoadMore query={scans} shown={rows.length} total={scans.data.pages[0]?.TotalCount} what="scans" />
    </Stack>
  );
}

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

function ScanRow({ scan, canRun }: { scan: DiscoveryScan; canRun: boolean }) {
  return (
    <Table.Tr>
      <Table.Td>
        <Anchor component={Link} to={`/discovery/${scan.Id}`} size="sm">
          {scan.Name}
        </Anchor>
      </Table.Td>
      <Table.Td style={{ fontFamily: 'var(--mantine-font-family-monospace)', overflowWrap: 'anywhere' }}>
        {scan.ScanTargets.map((t) => t.Range).join(', ')}
      </Table.Td>
      <Table.Td>
        <RunStateBadge state={scan.RunState} title={scan.LastRun?.Error} />
        <RunProgress scan={scan} />
      </Table.Td>
      <Table.Td ta="right" style={{ fontVariantNumeric: 'tabular-nums' }}>
        {scan.LastRun ? scan.LastRun.Progress.Found.toLocaleString() : '—'}
      </Table.Td>
      <Table.Td style={{ whiteSpace: 'nowrap' }}>
        {scan.ScanLastCompleted ? <DateTime value={scan.ScanLastCompleted} /> : '—'}
      </Table.Td>
      {canRun && (
        <Table.Td>
          <RunButtons scan={scan} />
        </Table.Td>
      )}
    </Table.Tr>
  );
}

export function RunButtons({ scan }: { scan: DiscoveryScan }) {
  const start = useStartScan();
  const stop = useStopScan();
  const fail = (error: unknown) => notifications.show({ color: 'red', message: errorMessage(error) });
  return isActive(scan.RunState) ? (
    <Button
      size="xs"
      variant="light"
      color="orange"
      leftSection={<IconPlayerStop size={14} />}
      loading={stop.isPending}
      disabled={scan.RunState === 'Stopping'}
      onClick={() => stop.mutate(scan.Id, { onError: fail })}
    >
      Stop
    </Button>
  ) : (
    <Button
      size="xs"
      variant="light"
      leftSection={<IconPlayerPlay size={14} />}
      loading={start.isPending}
      onClick={() => start.mutate(scan.Id, { onError: fail })}
    >
      Run now
    </Button>
  );
}
