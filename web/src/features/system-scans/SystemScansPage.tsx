import { Button, Group, Stack, Text, Title } from '@mantine/core';
import { useDisclosure, useDocumentTitle } from '@mantine/hooks';
import { useNavigate } from 'react-router';
import { useNodeOptions, useTemplateOptions } from '../../api/scans';
import { useSignedInSession } from '../../api/session';
import { type SystemScan, systemScans } from '../../api/systemscans';
import { hasRole } from '../../api/types';
import { LoadMore } from '../../components/LoadMore';
import { TableSkeleton } from '../../components/PageSkeleton';
import { QueryError } from '../../components/QueryError';
import { IconPlus } from '../../icons';
import { RunButtons, ScanTable } from '../scans/ScanParts';
import { SystemScanFormModal, targetsText } from './SystemScanFormModal';

export default function SystemScansPage() {
  useDocumentTitle('System scans · Rampart');
  const role = useSignedInSession().User.Role;
  const [formOpened, form] = useDisclosure(false);
  const navigate = useNavigate();
  return (
    <Stack gap="lg">
      <Group justify="space-between" align="flex-end">
        <div>
          <Title order={1}>System scans</Title>
          <Text size="sm" c="dimmed">
            Scan hosts for open ports, the services behind them and their weaknesses. Each run's findings land
            on the hosts' assets; what a run no longer sees is marked Fixed.
          </Text>
        </div>
        {hasRole(role, 'Manager') && (
          <Button leftSection={<IconPlus size={16} />} onClick={form.open}>
            New system scan
          </Button>
        )}
      </Group>
      <SystemScanList canRun={hasRole(role, 'Analyst')} />
      <SystemScanFormModal
        opened={formOpened}
        onClose={form.close}
        onSaved={(scan) => navigate(`/system-scans/${scan.Id}`)}
      />
    </Stack>
  );
}

function SystemScanList({ canRun }: { canRun: boolean }) {
  const scans = systemScans.useList();
  const templates = useTemplateOptions('System').data;
  const nodes = useNodeOptions('System').data;
  const start = systemScans.useStart();
  const stop = systemScans.useStop();
  if (scans.isPending) return <TableSkeleton rows={3} />;
  if (scans.isError && !scans.data) return <QueryError error={scans.error} onRetry={() => scans.refetch()} />;
  const rows = scans.data.pages.flatMap((p) => p.Items);
  return (
    <Stack gap="sm">
      <ScanTable<SystemScan>
        rows={rows}
        basePath="/system-scans"
        targetsLabel="Targets"
        targets={(scan) => targetsText(scan, ', ')}
        templates={templates}
        nodes={nodes}
        actions={canRun ? (scan) => <RunButtons scan={scan} start={start} stop={stop} /> : undefined}
        testId="system-scans-table"
        empty={
          <>
            <Text fw={600}>No system scans yet</Text>
            <Text size="sm" c="dimmed" mt={4}>
              A system scan connects to the ports of allowed hosts, names their services and runs safe checks.
            </Text>
          </>
        }
      />
      <LoadMore query={scans} shown={rows.length} total={scans.data.pages[0]?.TotalCount} what="scans" />
    </Stack>
  );
}
