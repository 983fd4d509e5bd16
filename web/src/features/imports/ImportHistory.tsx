import { Anchor, Stack, Table, Text } from '@mantine/core';
import { Link } from 'react-router';
import { type Import, useImportFormats, useImports } from '../../api/imports';
import { DateTime } from '../../components/DateTime';
import { EmptyState } from '../../components/EmptyState';
import { LoadMore } from '../../components/LoadMore';
import { TableSkeleton } from '../../components/PageSkeleton';
import { QueryError } from '../../components/QueryError';
import { TableHead } from '../../components/TableHead';
import { formatBytes, formatDuration, importName, toolName } from './format';
import { ImportStateBadge } from './ImportStateBadge';

/** Every import of the organisation, newest first; each row opens the import. */
export function ImportHistory({ canImport }: { canImport: boolean }) {
  const imports = useImports();
  const formats = useImportFormats().data;

  if (imports.isPending) return <TableSkeleton rows={4} />;
  if (imports.isError && !imports.data) {
    return <QueryError error={imports.error} onRetry={() => imports.refetch()} />;
  }

  const rows = imports.data.pages.flatMap((page) => page.Items);
  const total = imports.data.pages[0]?.TotalCount;

  if (rows.length === 0) {
    return (
      <EmptyState title="No reports imported yet" narrow>
        {canImport
          ? 'Import a scan from Nessus, Qualys, OpenVAS, Nmap, Trivy or another scanner above: its hosts become assets and its results become findings.'
          : 'Analysts import scanner reports here, or from a pipeline with rampart import. Their results will be listed here.'}
      </EmptyState>
    );
  }

  return (
    <Stack gap="sm">
      <Table.ScrollContainer minWidth={860}>
        <Table striped highlightOnHover verticalSpacing={6} horizontalSpacing="sm" fz="sm">
          <TableHead
            columns={[
              'File',
              'Format',
              'State',
              { label: 'New', ta: 'right' },
              { label: 'Fixed', ta: 'right' },
              { label: 'Reopened', ta: 'right' },
              { label: 'Size', ta: 'right' },
              'Imported',
              { label: 'Duration', ta: 'right' },
            ]}
          />
          <Table.Tbody>
            {rows.map((item) => (
              <HistoryRow key={item.Id} item={item} format={toolName(item.Format, formats)} />
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      <LoadMore query={imports} shown={rows.length} total={total} what="imports" />
    </Stack>
  );
}

const NUMERIC = { fontVariantNumeric: 'tabular-nums' } as const;

function HistoryRow({ item, format }: { item: Import; format: string }) {
  const done = item.State === 'Completed';
  const figure = (value: number | undefined) => (done ? (value ?? 0).toLocaleString() : '—');
  return (
    <Table.Tr>
      <Table.Td style={{ overflowWrap: 'anywhere' }}>
        <Anchor component={Link} to={`/imports/${item.Id}`} size="sm">
          {importName(item)}
        </Anchor>
        {item.ScopeName && (
          <Text size="xs" c="dimmed">
            Scope {item.ScopeName}
          </Text>
        )}
      </Table.Td>
      <Table.Td>{format}</Table.Td>
      <Table.Td>
        <ImportStateBadge state={item.State} attention={item.Attention} />
      </Table.Td>
      <Table.Td ta="right" style={NUMERIC}>
        {figure(item.Counts.New)}
      </Table.Td>
      <Table.Td ta="right" style={NUMERIC}>
        {figure(item.Counts.Fixed)}
      </Table.Td>
      <Table.Td ta="right" style={NUMERIC}>
        {figure(item.Counts.Reopened)}
      </Table.Td>
      <Table.Td ta="right" style={{ ...NUMERIC, whiteSpace: 'nowrap' }}>
        {formatBytes(item.FileSize)}
      </Table.Td>
      <Table.Td style={{ whiteSpace: 'nowrap' }}>
        <DateTime value={item.CreatedAt} />
      </Table.Td>
      <Table.Td ta="right" style={{ ...NUMERIC, whiteSpace: 'nowrap' }}>
        {formatDuration(item.DurationMs)}
      </Table.Td>
    </Table.Tr>
  );
}
