import { Anchor, Badge, Button, Checkbox, Group, Paper, Stack, Table, Text, Tooltip } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { memo, useCallback, useState } from 'react';
import { Link } from 'react-router';
import { errorMessage } from '../../api/client';
import { type StateChange, useBulkState, useFindings } from '../../api/findings';
import { useSignedInSession } from '../../api/session';
import {
  type BulkResult,
  type Finding,
  type FindingFilter,
  type FindingSort,
  hasRole,
} from '../../api/types';
import { vulnerabilityPath } from '../../api/vulnerabilities';
import { DateOnly, DueDate, FindingStateBadge, SeverityBadge } from '../../components/Badges';
import { LoadMore } from '../../components/LoadMore';
import { TableSkeleton } from '../../components/PageSkeleton';
import { QueryError } from '../../components/QueryError';
import { IconFlame } from '../../icons';
import { plural } from '../../labels';
import { IMPORTED_REASON, isFoundByScan, VerifyFindingsButton } from '../verify/VerifyButton';
import { AddToTicketModal } from './AddToTicketModal';
import { LocationCell } from './location';
import { type JustifiedState, StateModal } from './StateModal';

/** The notification after a bulk action: what changed, and what was left as it was. */
export function notifyBulk(result: BulkResult) {
  notifications.show({
    color: result.Changed > 0 ? 'green' : 'yellow',
    message: `${plural(result.Changed, 'finding')} changed (${result.Skipped} skipped)`,
  });
}

interface FindingsTableProps {
  filter: FindingFilter;
  sort: FindingSort;
  /** On an asset's page every row is on that asset. */
  hideAsset?: boolean;
  emptyText?: string;
  /** The heading level of the count line's region, for pages that have one. */
  label?: string;
}

export function FindingsTable({ filter, sort, hideAsset = false, emptyText, label }: FindingsTableProps) {
  const role = useSignedInSession().User.Role;
  const canChange = hasRole(role, 'Analyst');
  const canAccept = hasRole(role, 'Manager');
  const findings = useFindings(filter, sort);
  const bulk = useBulkState();

  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  // A new filter or order shows other rows: what was selected before is no longer in view.
  const viewKey = JSON.stringify([filter, sort]);
  const [selectedFor, setSelectedFor] = useState(viewKey);
  if (selectedFor !== viewKey) {
    setSelectedFor(viewKey);
    setSelected(new Set());
  }

  const [modal, setModal] = useState<JustifiedState | null>(null);
  const [linking, setLinking] = useState(false);

  const rows = findings.data?.pages.flatMap((page) => page.Items) ?? [];
  const total = findings.data?.pages[0]?.TotalCount;

  const toggle = useCallback((id: string, on: boolean) => {
    setSelected((current) => {
      const next = new Set(current);
      if (on) next.add(id);
      else next.delete(id);
      return next;
    });
  }, []);

  const allSelected = rows.length > 0 && rows.every((row) => selected.has(row.Id));
  const someSelected = !allSelected && rows.some((row) => selected.has(row.Id));
  const ids = [...selected];

  const done = (result: BulkResult) => {
    notifyBulk(result);
    setSelected(new Set());
    setModal(null);
    setLinking(false);
  };

  const apply = (change: StateChange) => {
    bulk.mutate({ Filter: { Ids: ids }, ...change }, { onSuccess: done });
  };

  const markFixed = () => {
    bulk.reset();
    bulk.mutate(
      { Filter: { Ids: ids }, State: 'Fixed' },
      {
        onSuccess: done,
        onError: (error) => notifications.show({ color: 'red', message: errorMessage(error) }),
      },
    );
  };

  const openModal = (target: JustifiedState) => {
    bulk.reset();
    setModal(target);
  };

  if (findings.isPending) return <TableSkeleton rows={6} />;
  if (findings.isError && !findings.data) {
    return <QueryError error={findings.error} onRetry={() => findings.refetch()} />;
  }

  const showSelection = canChange && rows.length > 0;

  return (
    <Stack gap="sm" aria-label={label}>
      <Group justify="space-between" mih={36} wrap="wrap" gap="sm">
        <Text size="sm" fw={600} aria-live="polite" data-testid="findings-total">
          {plural(total ?? rows.length, 'finding')}
          {findings.isPlaceholderData && (
            <Text component="span" size="sm" c="dimmed" fw={400} ml={6}>
              (updating…)
            </Text>
          )}
        </Text>
        {canChange && selected.size > 0 && (
          <Paper
            withBorder
            px="sm"
            py={4}
            radius="sm"
            role="toolbar"
            aria-label="Actions on the selected findings"
          >
            <Group gap="xs" wrap="wrap">
              <Text size="sm" fw={600} aria-live="polite">
                {selected.size} selected
              </Text>
              <Button
                size="compact-sm"
                variant="light"
                onClick={markFixed}
                loading={bulk.isPending && !modal}
              >
                Mark fixed
              </Button>
              <Button size="compact-sm" variant="light" onClick={() => openModal('FalsePositive')}>
                False positive…
              </Button>
              <Tooltip label="Only Managers and Admins may accept a risk" disabled={canAccept}>
                <Button
                  size="compact-sm"
                  variant="light"
                  onClick={() => openModal('RiskAccepted')}
                  disabled={!canAccept}
                  // Disabled buttons take no focus; the tooltip's words reach screen readers this way.
                  aria-description={canAccept ? undefined : 'Only Managers and Admins may accept a risk'}
                >
                  Accept risk…
                </Button>
              </Tooltip>
              <Button size="compact-sm" variant="light" onClick={() => setLinking(true)}>
                Add to ticket…
              </Button>
              <VerifyFindingsButton
                size="compact-sm"
                variant="light"
                findingIds={ids}
                // A selection with one scanned finding still verifies it; the others are said skipped.
                unavailable={
                  rows.some((row) => selected.has(row.Id) && isFoundByScan(row.Source))
                    ? undefined
                    : IMPORTED_REASON
                }
                titles={new Map(rows.filter((row) => selected.has(row.Id)).map((row) => [row.Id, row.Title]))}
                onDone={() => setSelected(new Set())}
              />
              <Button size="compact-sm" variant="subtle" color="gray" onClick={() => setSelected(new Set())}>
                Clear selection
              </Button>
            </Group>
          </Paper>
        )}
      </Group>

      {rows.length === 0 ? (
        <Text size="sm" c="dimmed" py="lg" ta="center">
          {emptyText ?? 'No findings match these filters.'}
        </Text>
      ) : (
        <Table.ScrollContainer minWidth={hideAsset ? 900 : 1080}>
          <Table striped highlightOnHover verticalSpacing={6} horizontalSpacing="sm" fz="sm">
            <Table.Thead>
              <Table.Tr>
                {showSelection && (
                  <Table.Th w={36}>
                    <Checkbox
                      size="xs"
                      aria-label="Select all shown findings"
                      checked={allSelected}
                      indeterminate={someSelected}
                      onChange={(e) =>
                        setSelected(e.currentTarget.checked ? new Set(rows.map((row) => row.Id)) : new Set())
                      }
                    />
                  </Table.Th>
                )}
                <Table.Th w={100}>Severity</Table.Th>
                <Table.Th>Title</Table.Th>
                {!hideAsset && <Table.Th>Asset</Table.Th>}
                <Table.Th>Location</Table.Th>
                <Table.Th w={120}>State</Table.Th>
                <Table.Th w={60} ta="right">
                  Risk
                </Table.Th>
                <Table.Th w={140}>Due</Table.Th>
                <Table.Th w={120}>Last seen</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((finding) => (
                <FindingRow
                  key={finding.Id}
                  finding={finding}
                  selectable={showSelection}
                  selected={selected.has(finding.Id)}
                  onToggle={toggle}
                  hideAsset={hideAsset}
                />
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}

      <LoadMore query={findings} shown={rows.length} total={total} what="findings" />

      <StateModal
        target={modal}
        onClose={() => setModal(null)}
        subject={plural(selected.size, 'selected finding')}
        pending={bulk.isPending}
        error={bulk.error}
        onApply={apply}
      />
      <AddToTicketModal opened={linking} onClose={() => setLinking(false)} findingIds={ids} onDone={done} />
    </Stack>
  );
}

interface FindingRowProps {
  finding: Finding;
  selectable: boolean;
  selected: boolean;
  onToggle: (id: string, on: boolean) => void;
  hideAsset: boolean;
}

// Rows compare by props: ticking one box re-renders one row, not the whole table.
const FindingRow = memo(function FindingRow({
  finding,
  selectable,
  selected,
  onToggle,
  hideAsset,
}: FindingRowProps) {
  const open = finding.State === 'Open' || finding.State === 'Reopened';
  return (
    <Table.Tr bg={selected ? 'var(--mantine-primary-color-light)' : undefined}>
      {selectable && (
        <Table.Td>
          <Checkbox
            size="xs"
            aria-label={`Select ${finding.Title}`}
            checked={selected}
            onChange={(e) => onToggle(finding.Id, e.currentTarget.checked)}
          />
        </Table.Td>
      )}
      <Table.Td>
        <SeverityBadge severity={finding.Severity} />
      </Table.Td>
      <Table.Td style={{ overflowWrap: 'anywhere' }}>
        <Group gap={6} wrap="nowrap">
          <Anchor component={Link} to={`/findings/${finding.Id}`} size="sm">
            {finding.Title}
          </Anchor>
          {finding.Kev && (
            <Tooltip label="Known exploited (CISA KEV)">
              <IconFlame
                size={16}
                color="var(--mantine-color-red-6)"
                aria-label="Known exploited"
                role="img"
              />
            </Tooltip>
          )}
          {finding.Confidence === 'Unconfirmed' && (
            <Tooltip label="Not confirmed: Rampart holds no advisory data of this build's distribution (see its evidence). Not counted in risk or SLA.">
              <Badge size="xs" variant="outline" color="gray">
                Unconfirmed
              </Badge>
            </Tooltip>
          )}
        </Group>
        {finding.CVEReferences.length > 0 && (
          <Anchor
            component={Link}
            to={vulnerabilityPath(finding.VulnerabilityId)}
            size="xs"
            c="dimmed"
            title="The vulnerability: CVSS, EPSS, KEV and every asset it affects"
          >
            {finding.CVEReferences[0]}
            {finding.CVEReferences.length > 1 && ` +${finding.CVEReferences.length - 1}`}
          </Anchor>
        )}
      </Table.Td>
      {!hideAsset && (
        <Table.Td style={{ overflowWrap: 'anywhere' }}>
          <Anchor component={Link} to={`/assets/${finding.AssetId}`} size="sm">
            {finding.AssetName}
          </Anchor>
        </Table.Td>
      )}
      <Table.Td style={{ overflowWrap: 'anywhere' }}>
        <LocationCell location={finding.Location} />
      </Table.Td>
      <Table.Td>
        <FindingStateBadge state={finding.State} />
      </Table.Td>
      <Table.Td ta="right" style={{ fontVariantNumeric: 'tabular-nums' }}>
        {Math.round(finding.RiskScore)}
      </Table.Td>
      <Table.Td>
        <DueDate value={finding.DueAt} done={!open} />
      </Table.Td>
      <Table.Td>
        <DateOnly value={finding.LastSeen} />
      </Table.Td>
    </Table.Tr>
  );
});
