import { Button, Group, Stack, Table, Text } from '@mantine/core';
import { useState } from 'react';
import { feedLabel, type IntelLoad, useIntelLoads } from '../../api/intel';
import { DateTime } from '../../components/DateTime';
import { EmptyState } from '../../components/EmptyState';
import { TableSkeleton } from '../../components/PageSkeleton';
import { QueryError } from '../../components/QueryError';
import { TableHead } from '../../components/TableHead';
import { formatDuration } from '../imports/format';
import { ImportStateBadge } from '../imports/ImportStateBadge';
import { DataDate } from './LoadResult';

const SHOWN = 10;
const NUMERIC = { fontVariantNumeric: 'tabular-nums' } as const;

/** The recent loads of every feed, newest first. */
export function LoadHistory() {
  const loads = useIntelLoads();
  const [all, setAll] = useState(false);

  if (loads.isPending) return <TableSkeleton rows={4} />;
  if (loads.isError && !loads.data) return <QueryError error={loads.error} onRetry={() => loads.refetch()} />;

  const rows = loads.data;
  if (rows.length === 0) {
    return (
      <EmptyState title="Nothing loaded yet" narrow>
        Load a feed file above. On its first start Rampart loads its bundled knowledge base by itself, unless
        RAMPART_INTEL_KB turns it off.
      </EmptyState>
    );
  }
  const shown = all ? rows : rows.slice(0, SHOWN);

  return (
    <Stack gap="sm">
      {/* Fits beside the navigation from 1280 px; narrower, it scrolls with its scrollbar shown. */}
      <Table.ScrollContainer minWidth={860} scrollAreaProps={{ type: 'auto' }}>
        <Table striped highlightOnHover verticalSpacing={6} horizontalSpacing="xs" fz="sm">
          <TableHead
            columns={[
              { label: 'Feed', w: 80 },
              { label: 'File', miw: 150 },
              { label: 'State', w: 100 },
              'Data of',
              { label: 'Added', ta: 'right' },
              { label: 'Updated', ta: 'right' },
              { label: 'Unchanged', ta: 'right' },
              { label: 'Skipped', ta: 'right' },
              'Started',
              { label: 'Duration', ta: 'right' },
            ]}
          />
          <Table.Tbody>
            {shown.map((load) => (
              <LoadRow key={load.Id} load={load} />
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      <Group justify="space-between">
        <Text size="sm" c="dimmed" aria-live="polite">
          Showing {shown.length} of {rows.length}
          {rows.length >= 100 && ' most recent'}
        </Text>
        {rows.length > SHOWN && (
          <Button variant="default" onClick={() => setAll((value) => !value)}>
            {all ? 'Show fewer' : `Show all ${rows.length}`}
          </Button>
        )}
      </Group>
    </Stack>
  );
}

function LoadRow({ load }: { load: IntelLoad }) {
  const done = load.State === 'Completed';
  const figure = (value: number) => (done ? value.toLocaleString() : '—');
  const duration = load.FinishedAt
    ? new Date(load.FinishedAt).getTime() - new Date(load.StartedAt).getTime()
    : null;
  return (
    <Table.Tr>
      <Table.Td fw={500}>{feedLabel(load.Feed)}</Table.Td>
      <Table.Td style={{ overflowWrap: 'anywhere', minWidth: 150 }}>
        {load.Source}
        {load.Error && (
          <Text size="xs" c="red">
            {load.Error}
          </Text>
        )}
        {load.Warnings.length > 0 && (
          <Text size="xs" c="orange">
            {load.Warnings.length === 1 ? '1 warning' : `${load.Warnings.length} warnings`}
          </Text>
        )}
      </Table.Td>
      <Table.Td>
        <ImportStateBadge state={load.State} />
      </Table.Td>
      {/* Dates wrap between their parts ("Oct 8, 2026," / "10:17 PM") so that the table fits. */}
      <Table.Td miw={100}>
        <DataDate value={load.DataDate} />
      </Table.Td>
      <Table.Td ta="right" style={NUMERIC}>
        {figure(load.Added)}
      </Table.Td>
      <Table.Td ta="right" style={NUMERIC}>
        {figure(load.Updated)}
      </Table.Td>
      <Table.Td ta="right" style={NUMERIC}>
        {figure(load.Unchanged)}
      </Table.Td>
      <Table.Td ta="right" style={NUMERIC}>
        {figure(load.Skipped)}
      </Table.Td>
      <Table.Td miw={100}>
        <DateTime value={load.StartedAt} />
      </Table.Td>
      <Table.Td ta="right" style={{ ...NUMERIC, whiteSpace: 'nowrap' }}>
        {formatDuration(duration)}
      </Table.Td>
    </Table.Tr>
  );
}
