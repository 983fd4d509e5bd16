import { Anchor, Table } from '@mantine/core';
import type { CSSProperties } from 'react';
import { Link } from 'react-router';
import { useNodeOptions, useTemplateOptions } from '../../api/scans';
import { DateTime } from '../../components/DateTime';
import { EmptyState } from '../../components/EmptyState';
import { TableHead } from '../../components/TableHead';
import { RunButtons } from './RunButtons';
import { RunStateBadge } from './RunStateBadge';
import { labelOf } from './scanText';
import { type ListedScan, type ScanColumn, type ScanKindView, wordsOf } from './view';

const CODE: CSSProperties = { fontFamily: 'var(--mantine-font-family-monospace)', overflowWrap: 'anywhere' };
const NUMERIC: CSSProperties = { fontVariantNumeric: 'tabular-nums' };
const NOWRAP: CSSProperties = { whiteSpace: 'nowrap' };

function cellStyle(
  column: Pick<ScanColumn<unknown>, 'code' | 'numeric' | 'nowrap'>,
): CSSProperties | undefined {
  if (column.code) return CODE;
  if (column.numeric) return NUMERIC;
  return column.nowrap ? NOWRAP : undefined;
}

/** The scans of one kind as a table: the name, the kind's columns, then Run now / Stop. */
export function ScanTable<S extends ListedScan, B, F extends string>({
  view,
  rows,
  canRun,
}: {
  view: ScanKindView<S, B, F>;
  rows: S[];
  canRun: boolean;
}) {
  const testId = `${view.path.slice(1)}-table`;
  const options = { templates: useTemplateOptions(view.kind).data, nodes: useNodeOptions(view.kind).data };
  const start = view.hooks.useStart();
  const stop = view.hooks.useStop();
  if (rows.length === 0)
    return <EmptyState title={wordsOf(view.labels).emptyTitle}>{view.labels.emptyText}</EmptyState>;
  return (
    <Table.ScrollContainer minWidth={view.minTableWidth ?? 900}>
      <Table striped highlightOnHover verticalSpacing={6} horizontalSpacing="sm" fz="sm" data-testid={testId}>
        <TableHead
          columns={[
            'Name',
            ...view.columns.map((c) => (c.numeric ? { label: c.header, ta: 'right' as const } : c.header)),
            canRun && { ariaLabel: 'Actions' },
          ]}
        />
        <Table.Tbody>
          {rows.map((scan) => (
            <Table.Tr key={scan.Id}>
              <Table.Td>
                <Anchor component={Link} to={`${view.path}/${scan.Id}`} size="sm">
                  {scan.Name}
                </Anchor>
              </Table.Td>
              {view.columns.map((c) => (
                <Table.Td key={c.header} ta={c.numeric ? 'right' : undefined} style={cellStyle(c)}>
                  {c.cell(scan, options)}
                </Table.Td>
              ))}
              {canRun && (
                <Table.Td>
                  <RunButtons scan={scan} start={start} stop={stop} />
                </Table.Td>
              )}
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

/** The columns system and web scans share after their targets: template, node, last and next run. */
export function settingsColumns<S extends ListedScan>(): ScanColumn<S>[] {
  return [
    { header: 'Template', cell: (scan, o) => labelOf(o.templates, scan.TemplateId) },
    { header: 'Scan node', cell: (scan, o) => labelOf(o.nodes, scan.ScanNodeId) ?? 'Any node' },
    {
      header: 'Last run',
      cell: (scan) => <RunStateBadge state={scan.RunState} title={scan.LastRun?.Error} />,
    },
    {
      header: 'Next run',
      nowrap: true,
      cell: (scan) => (scan.NextRunAt ? <DateTime value={scan.NextRunAt} /> : '—'),
    },
  ];
}
