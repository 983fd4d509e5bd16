import { Button, Group, Stack, Text, Title } from '@mantine/core';
import { useDisclosure, useDocumentTitle } from '@mantine/hooks';
import { useNavigate } from 'react-router';
import { useNodeOptions, useTemplateOptions } from '../../api/scans';
import { useSignedInSession } from '../../api/session';
import { hasRole } from '../../api/types';
import { type WebScan, webScans } from '../../api/webscans';
import { LoadMore } from '../../components/LoadMore';
import { TableSkeleton } from '../../components/PageSkeleton';
import { QueryError } from '../../components/QueryError';
import { IconPlus } from '../../icons';
import { RunButtons, ScanTable } from '../scans/ScanParts';
import { WebScanFormModal } from './WebScanFormModal';

export default function WebScansPage() {
  useDocumentTitle('Web scans · Rampart');
  const role = useSignedInSession().User.Role;
  const [formOpened, form] = useDisclosure(false);
  const navigate = useNavigate();
  return (
    <Stack gap="lg">
      <Group justify="space-between" align="flex-end">
        <div>
          <Title order={1}>Web scans</Title>
          <Text size="sm" c="dimmed">
            Check web sites and applications: TLS, security headers, cookies and exposed files. Each run's
            findings are kept per URL; what a run no longer sees is marked Fixed.
          </Text>
        </div>
        {hasRole(role, 'Manager') && (
          <Button leftSection={<IconPlus size={16} />} onClick={form.open}>
            New web scan
          </Button>
        )}
      </Group>
      <WebScanList canRun={hasRole(role, 'Analyst')} />
      <WebScanFormModal
        opened={formOpened}
        onClose={form.close}
        onSaved={(scan) => navigate(`/web-scans/${scan.Id}`)}
      />
    </Stack>
  );
}

function WebScanList({ canRun }: { canRun: boolean }) {
  const scans = webScans.useList();
  const templates = useTemplateOptions('Web').data;
  const nodes = useNodeOptions('Web').data;
  const start = webScans.useStart();
  const stop = webScans.useStop();
  if (scans.isPending) return <TableSkeleton rows={3} />;
  if (scans.isError && !scans.data) return <QueryError error={scans.error} onRetry={() => scans.refetch()} />;
  const rows = scans.data.pages.flatMap((p) => p.Items);
  return (
    <Stack gap="sm">
      <ScanTable<WebScan>
        rows={rows}
        basePath="/web-scans"
        targetsLabel="URLs"
        targets={(scan) => scan.Urls.join(', ')}
        templates={templates}
        nodes={nodes}
        actions={canRun ? (scan) => <RunButtons scan={scan} start={start} stop={stop} /> : undefined}
        testId="web-scans-table"
        empty={
          <>
            <Text fw={600}>No web scans yet</Text>
            <Text size="sm" c="dimmed" mt={4}>
              A web scan requests the URLs you give it, on allowed hosts only, and judges what they answer.
            </Text>
          </>
        }
      />
      <LoadMore query={scans} shown={rows.length} total={scans.data.pages[0]?.TotalCount} what="scans" />
    </Stack>
  );
}
