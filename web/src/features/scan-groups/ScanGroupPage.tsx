import { Anchor, Card, Group, List, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { Link, useNavigate, useParams } from 'react-router';
import { discoveryScans } from '../../api/discovery';
import {
  type GroupSystemScans,
  type ScanGroup,
  useDeleteScanGroup,
  useGroupScans,
  useScanGroup,
} from '../../api/scangroups';
import { useNodeOptions, useTemplateOptions } from '../../api/scans';
import { useSignedInSession } from '../../api/session';
import { hasRole } from '../../api/types';
import { ConfirmModal } from '../../components/ConfirmModal';
import { DateTime } from '../../components/DateTime';
import { DetailPage } from '../../components/DetailPage';
import { EditDeleteButtons } from '../../components/EditDeleteButtons';
import { Fact } from '../../components/Fact';
import { TableSkeleton } from '../../components/PageSkeleton';
import { QueryError } from '../../components/QueryError';
import { TableHead } from '../../components/TableHead';
import { labelOf, ScheduleText } from '../scans/scanText';
import { settingsOf } from './groupForm';
import { ScanGroupFormModal } from './ScanGroupFormModal';

export default function ScanGroupPage() {
  const { id = '' } = useParams();
  const group = useScanGroup(id);
  return (
    <DetailPage
      query={group}
      title={group.data?.ScanGroupName ?? 'Scan group'}
      back={{ to: '/scan-groups', label: 'All scan groups' }}
    >
      {(data) => <GroupView group={data} />}
    </DetailPage>
  );
}

function GroupView({ group }: { group: ScanGroup }) {
  const canEdit = hasRole(useSignedInSession().User.Role, 'Manager');
  const [editOpened, edit] = useDisclosure(false);
  const [deleteOpened, confirmDelete] = useDisclosure(false);
  const remove = useDeleteScanGroup();
  const navigate = useNavigate();
  const scans = useGroupScans(group.Id);
  return (
    <Stack gap="lg">
      <Group justify="space-between" align="flex-start">
        <div>
          <Title order={1}>{group.ScanGroupName}</Title>
          {group.ScanDescription && (
            <Text size="sm" c="dimmed">
              {group.ScanDescription}
            </Text>
          )}
        </div>
        {canEdit && (
          <Group gap="xs">
            <EditDeleteButtons onEdit={edit.open} onDelete={confirmDelete.open} />
          </Group>
        )}
      </Group>

      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <SettingsCard kind="System" group={group} />
        <SettingsCard kind="Web" group={group} />
      </SimpleGrid>
      <MonitorsCard group={group} />

      <ScansTable title="System scans" basePath="/system-scans" query={scans.system} />
      <ScansTable title="Web scans" basePath="/web-scans" query={scans.web} />

      <ScanGroupFormModal opened={editOpened} onClose={edit.close} group={group} />
      <ConfirmModal
        opened={deleteOpened}
        onClose={confirmDelete.close}
        title="Delete scan group"
        confirmLabel="Delete"
        mutation={remove}
        onConfirm={() => remove.mutate(group.Id, { onSuccess: () => navigate('/scan-groups') })}
      >
        <Text size="sm">Delete “{group.ScanGroupName}”? Its scans stay, outside any group.</Text>
      </ConfirmModal>
    </Stack>
  );
}

function SettingsCard({ kind, group }: { kind: 'System' | 'Web'; group: ScanGroup }) {
  const templates = useTemplateOptions(kind).data;
  const nodes = useNodeOptions(kind).data;
  const s = settingsOf(group, kind);
  const title = kind === 'System' ? 'System scans' : 'Web scans';
  return (
    <Card withBorder radius="md" component="section" aria-label={`${title} settings`}>
      <Title order={2} size="h5" mb="xs">
        {title}
      </Title>
      <Stack gap={6} component="dl" m={0}>
        <Fact label="Made">{s.enabled ? `Yes, up to ${s.max}` : 'No'}</Fact>
        <Fact label="Template">{labelOf(templates, s.templateId) ?? 'The built-in template'}</Fact>
        <Fact label="Scan node">{labelOf(nodes, s.nodeId) ?? 'Any node'}</Fact>
        <Fact label="Schedule">
          <ScheduleText schedule={s.schedule} next={null} />
        </Fact>
      </Stack>
    </Card>
  );
}

function MonitorsCard({ group }: { group: ScanGroup }) {
  const discovery = discoveryScans.useList();
  const names = new Map((discovery.data?.pages.flatMap((p) => p.Items) ?? []).map((s) => [s.Id, s.Name]));
  const monitors = group.AssetMonitoringConfigurations;
  return (
    <Card withBorder radius="md" component="section" aria-labelledby="monitoring-title">
      <Title order={2} size="h5" mb="xs" id="monitoring-title">
        Asset monitoring
      </Title>
      {monitors.length === 0 ? (
        <Text size="sm" c="dimmed">
          This group follows no discovery scan.
        </Text>
      ) : (
        <List size="sm" spacing={6}>
          {monitors.map((m) => (
            <List.Item key={m.Id}>
              <Anchor component={Link} to={`/discovery/${m.DiscoveryScanId}`} size="sm">
                {names.get(m.DiscoveryScanId) ?? m.DiscoveryScanId}
              </Anchor>
              {m.IsActive ? '' : ' (paused)'}: {monitorWords(m).join('; ')}
            </List.Item>
          ))}
        </List>
      )}
      {group.Notes.length > 0 && (
        <Stack gap={2} mt="sm">
          <Text size="sm" fw={600}>
            Not done
          </Text>
          {group.Notes.map((n) => (
            <Text size="sm" key={`${n.At}:${n.Message}`}>
              <DateTime value={n.At} /> {n.Message}
            </Text>
          ))}
        </Stack>
      )}
    </Card>
  );
}

/** What a monitoring configuration does, in words. */
function monitorWords(m: ScanGroup['AssetMonitoringConfigurations'][number]): string[] {
  const words: string[] = [];
  if (m.TrackSystemScans) {
    words.push('a system scan per host');
    if (m.RunSystemScanImmediatelyAfterAdd) words.push('run when added');
    if (m.RunSystemScanImmediatelyIfNewServicesDiscovered) words.push('run when new services appear');
    if (m.RemoveSystemScanWhenUndiscovered) words.push('removed when the host is gone');
  }
  if (m.TrackWebScans) {
    words.push(
      `a web scan per HTTP port ${m.TrackedHttpPortRangeForWebScan || '—'} and HTTPS port ${m.TrackedHttpsPortRangeForWebScan || '—'}`,
    );
    if (m.RunWebScanImmediatelyAfterAdd) words.push('web scans run when added');
    if (m.RemoveWebScanWhenUndiscovered) words.push('web scans removed when the host is gone');
  }
  return words.length ? words : ['tracks nothing'];
}

function ScansTable({
  title,
  basePath,
  query,
}: {
  title: string;
  basePath: string;
  query: {
    isPending: boolean;
    isError: boolean;
    error: unknown;
    data: GroupSystemScans | undefined;
    refetch: () => unknown;
  };
}) {
  const id = `${basePath.slice(1)}-title`;
  return (
    <Stack gap="sm" component="section" aria-labelledby={id}>
      <Title order={2} size="h4" id={id}>
        {title}
      </Title>
      {query.isPending ? (
        <TableSkeleton rows={2} />
      ) : query.isError || !query.data ? (
        <QueryError error={query.error} onRetry={() => query.refetch()} />
      ) : query.data.length === 0 ? (
        <Text size="sm" c="dimmed">
          None yet.
        </Text>
      ) : (
        <Table fz="sm" verticalSpacing={4} striped>
          <TableHead columns={['Name', 'Host', 'Last completed']} />
          <Table.Tbody>
            {query.data.map((s) => (
              <Table.Tr key={s.Id}>
                <Table.Td>
                  <Anchor component={Link} to={`${basePath}/${s.Id}`} size="sm">
                    {s.Name}
                  </Anchor>
                </Table.Td>
                <Table.Td>{s.Hostname ?? '—'}</Table.Td>
                <Table.Td>
                  {s.ScanLastCompleted ? <DateTime value={s.ScanLastCompleted} /> : 'Never'}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Stack>
  );
}
