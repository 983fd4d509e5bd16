import { ActionIcon, Anchor, Badge, Group, Progress, Stack, Table, Text, Tooltip } from '@mantine/core';
import {
  downloadPath,
  isActive,
  type Report,
  type ReportState,
  useDeleteReport,
  useReports,
} from '../../api/reports';
import { DateTime } from '../../components/DateTime';
import { EmptyState } from '../../components/EmptyState';
import { LoadMore } from '../../components/LoadMore';
import { TableSkeleton } from '../../components/PageSkeleton';
import { QueryError } from '../../components/QueryError';
import { TableHead } from '../../components/TableHead';
import { IconDownload, IconTrash } from '../../icons';
import { formatBytes } from '../imports/format';

const COLORS: Record<ReportState, string> = {
  Queued: 'gray',
  Running: 'blue',
  Completed: 'green',
  Failed: 'red',
};

const scopeText = (r: Report) =>
  `${r.Scope.Kind === 'Tag' ? `Tag ${r.Scope.Tag}` : r.Scope.Kind === 'ScanGroup' ? 'Scan group' : 'Organisation'}${r.Filter ? ', filtered' : ''}`;

/** Every report made, newest first: its state and progress while a job makes it, its download once made. */
export function ReportHistory({ canDelete }: { canDelete: boolean }) {
  const reports = useReports();
  const remove = useDeleteReport();
  if (reports.isPending) return <TableSkeleton rows={4} />;
  if (reports.isError && !reports.data)
    return <QueryError error={reports.error} onRetry={() => reports.refetch()} />;
  const rows = reports.data.pages.flatMap((p) => p.Items);
  const total = reports.data.pages[0]?.TotalCount;
  if (rows.length === 0)
    return (
      <EmptyState title="No reports yet" narrow>
        Make an executive summary or a technical report above; scheduled reports are listed here too.
      </EmptyState>
    );
  return (
    <Stack gap="sm">
      <Table.ScrollContainer minWidth={860}>
        <Table striped highlightOnHover verticalSpacing={6} horizontalSpacing="sm" fz="sm">
          <TableHead
            columns={[
              'Report',
              'Kind',
              'Format',
              { label: 'State', miw: 110 },
              { label: 'Progress', miw: 140 },
              'Created',
              { label: 'Size', ta: 'right' },
              { ariaLabel: 'Actions' },
            ]}
          />
          <Table.Tbody>
            {rows.map((r) => (
              <Table.Tr key={r.Id}>
                <Table.Td>
                  <Text size="sm" fw={500}>
                    {r.Name}
                  </Text>
                  <Text size="xs" c="dimmed">
                    {scopeText(r)}
                    {r.DeliveredAt ? ' · mailed' : ''}
                  </Text>
                  {r.Error && (
                    <Text size="xs" c="red">
                      {r.Error}
                    </Text>
                  )}
                  {r.DeliveryError && (
                    <Text size="xs" c="orange">
                      {r.DeliveryError}
                    </Text>
                  )}
                </Table.Td>
                <Table.Td>{r.Kind}</Table.Td>
                <Table.Td>{r.Format.toUpperCase()}</Table.Td>
                <Table.Td>
                  <Badge
                    color={COLORS[r.State]}
                    variant="light"
                    styles={{ root: { flexShrink: 0, overflow: 'visible' }, label: { overflow: 'visible' } }}
                  >
                    {r.State}
                  </Badge>
                </Table.Td>
                <Table.Td>
                  <Group gap={6} wrap="nowrap">
                    <Progress
                      value={r.Progress}
                      w={90}
                      color={r.State === 'Failed' ? 'red' : undefined}
                      animated={isActive(r.State)}
                      aria-label={`${r.Name}: ${r.Progress}% done`}
                    />
                    <Text size="xs" c="dimmed">
                      {r.Progress}%{r.RowsTotal !== null ? ` · ${r.RowsWritten}/${r.RowsTotal}` : ''}
                    </Text>
                  </Group>
                </Table.Td>
                <Table.Td>
                  <DateTime value={r.CreatedAt} />
                </Table.Td>
                <Table.Td ta="right" style={{ whiteSpace: 'nowrap' }}>
                  {r.SizeBytes === null ? '' : formatBytes(r.SizeBytes)}
                </Table.Td>
                <Table.Td>
                  <Group gap={4} wrap="nowrap" justify="flex-end">
                    {r.State === 'Completed' && (
                      <Anchor href={downloadPath(r.Id)} download={r.FileName ?? undefined} size="sm">
                        <Group gap={4} wrap="nowrap">
                          <IconDownload size={16} aria-hidden />
                          Download
                        </Group>
                      </Anchor>
                    )}
                    {canDelete && (
                      <Tooltip label="Remove from the history">
                        <ActionIcon
                          variant="subtle"
                          color="red"
                          aria-label={`Remove ${r.Name}`}
                          onClick={() => remove.mutate(r.Id)}
                        >
                          <IconTrash size={16} />
                        </ActionIcon>
                      </Tooltip>
                    )}
                  </Group>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      <LoadMore query={reports} shown={rows.length} total={total} what="reports" />
    </Stack>
  );
}
