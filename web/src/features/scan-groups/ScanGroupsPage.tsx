import { Anchor, Button, Stack, Table } from '@mantine/core';
import { useDisclosure, useDocumentTitle } from '@mantine/hooks';
import { Link, useNavigate } from 'react-router';
import { useScanGroups } from '../../api/scangroups';
import { useSignedInSession } from '../../api/session';
import { hasRole } from '../../api/types';
import { EmptyState } from '../../components/EmptyState';
import { LoadMore } from '../../components/LoadMore';
import { PageHeader } from '../../components/PageHeader';
import { TableSkeleton } from '../../components/PageSkeleton';
import { QueryError } from '../../components/QueryError';
import { TableHead } from '../../components/TableHead';
import { IconPlus } from '../../icons';
import { ScanGroupFormModal } from './ScanGroupFormModal';

export default function ScanGroupsPage() {
  useDocumentTitle('Scan groups · Rampart');
  const canEdit = hasRole(useSignedInSession().User.Role, 'Manager');
  const [formOpened, form] = useDisclosure(false);
  const navigate = useNavigate();
  return (
    <Stack gap="lg">
      <PageHeader
        title="Scan groups"
        action={
          canEdit && (
            <Button leftSection={<IconPlus size={16} />} onClick={form.open}>
              New scan group
            </Button>
          )
        }
      >
        A group keeps system and web scans together with one template, node and schedule, and can follow a
        discovery scan: hosts it finds get their own scans, hosts that go away lose them.
      </PageHeader>
      <GroupList />
      <ScanGroupFormModal
        opened={formOpened}
        onClose={form.close}
        onSaved={(group) => navigate(`/scan-groups/${group.Id}`)}
      />
    </Stack>
  );
}

function GroupList() {
  const groups = useScanGroups();
  if (groups.isPending) return <TableSkeleton rows={3} />;
  if (groups.isError && !groups.data)
    return <QueryError error={groups.error} onRetry={() => groups.refetch()} />;
  const rows = groups.data.pages.flatMap((p) => p.Items);
  if (rows.length === 0)
    return (
      <EmptyState title="No scan groups yet">
        Make one to scan the hosts a discovery scan finds, each with its own system scan.
      </EmptyState>
    );
  return (
    <Stack gap="sm">
      <Table.ScrollContainer minWidth={720}>
        <Table
          striped
          highlightOnHover
          verticalSpacing={6}
          horizontalSpacing="sm"
          fz="sm"
          data-testid="groups-table"
        >
          <TableHead
            columns={[
              'Name',
              'Description',
              'System scans',
              'Web scans',
              { label: 'Monitoring', ta: 'right' },
            ]}
          />
          <Table.Tbody>
            {rows.map((g) => (
              <Table.Tr key={g.Id}>
                <Table.Td>
                  <Anchor component={Link} to={`/scan-groups/${g.Id}`} size="sm">
                    {g.ScanGroupName}
                  </Anchor>
                </Table.Td>
                <Table.Td>{g.ScanDescription || '—'}</Table.Td>
                <Table.Td>{g.SystemScanSettingsEnabled ? `up to ${g.MaxSystemScans}` : 'Off'}</Table.Td>
                <Table.Td>{g.WebScanSettingsEnabled ? `up to ${g.MaxWebScans}` : 'Off'}</Table.Td>
                <Table.Td ta="right">{g.AssetMonitoringConfigurations.length}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      <LoadMore query={groups} shown={rows.length} total={groups.data.pages[0]?.TotalCount} what="groups" />
    </Stack>
  );
}
