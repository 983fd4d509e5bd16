import { Anchor, Button, Group, Paper, Stack, Table, Text, Title } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { notifications } from '@mantine/notifications';
import type { ReactNode } from 'react';
import { Link, useNavigate } from 'react-router';
import { ApiError, errorMessage } from '../../api/client';
import { type DiscoveryRunState, isActive } from '../../api/discovery';
import { useSignedInSession } from '../../api/session';
import { hasRole } from '../../api/types';
import { ConfirmModal } from '../../components/ConfirmModal';
import { DateTime } from '../../components/DateTime';
import { TableSkeleton } from '../../components/PageSkeleton';
import { QueryError } from '../../components/QueryError';
import { IconPencil, IconPlayerPlay, IconPlayerStop, IconTrash } from '../../icons';
import { RunStateBadge } from '../discovery/RunStateBadge';

/** What the list and the scan page read of a system or a web scan. */
export interface ListedScan {
  Id: string;
  Name: string;
  RunState: DiscoveryRunState;
  TemplateId: string;
  ScanNodeId: string | null;
  NextRunAt: string | null;
  LastRun: { Error: string | null } | null;
}

interface RunMutation {
  mutate: (id: string, options: { onError: (error: unknown) => void }) => void;
  isPending: boolean;
}

const fail = (error: unknown) => notifications.show({ color: 'red', message: errorMessage(error) });

/** Run now, or Stop while a run is under way. */
export function RunButtons({
  scan,
  start,
  stop,
}: {
  scan: Pick<ListedScan, 'Id' | 'RunState'>;
  start: RunMutation;
  stop: RunMutation;
}) {
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

/** A label for an id among select options, or the id when it is not among them. */
export function labelOf(options: { value: string; label: string }[] | undefined, id: string | null) {
  if (!id) return null;
  return options?.find((o) => o.value === id)?.label ?? id;
}

/** The scans of one kind as a table: name, targets, template, node, last run, next run. */
export function ScanTable<S extends ListedScan>({
  rows,
  basePath,
  targetsLabel,
  targets,
  templates,
  nodes,
  actions,
  empty,
  testId,
}: {
  rows: S[];
  basePath: string;
  targetsLabel: string;
  targets: (scan: S) => string;
  templates: { value: string; label: string }[] | undefined;
  nodes: { value: string; label: string }[] | undefined;
  actions?: (scan: S) => ReactNode;
  empty: ReactNode;
  testId: string;
}) {
  if (rows.length === 0)
    return (
      <Paper withBorder radius="md" p="xl" ta="center">
        {empty}
      </Paper>
    );
  return (
    <Table.ScrollContainer minWidth={900}>
      <Table striped highlightOnHover verticalSpacing={6} horizontalSpacing="sm" fz="sm" data-testid={testId}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Name</Table.Th>
            <Table.Th>{targetsLabel}</Table.Th>
            <Table.Th>Template</Table.Th>
            <Table.Th>Scan node</Table.Th>
            <Table.Th>Last run</Table.Th>
            <Table.Th>Next run</Table.Th>
            {actions && <Table.Th aria-label="Actions" />}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((scan) => (
            <Table.Tr key={scan.Id}>
              <Table.Td>
                <Anchor component={Link} to={`${basePath}/${scan.Id}`} size="sm">
                  {scan.Name}
                </Anchor>
              </Table.Td>
              <Table.Td
                style={{ fontFamily: 'var(--mantine-font-family-monospace)', overflowWrap: 'anywhere' }}
              >
                {targets(scan)}
              </Table.Td>
              <Table.Td>{labelOf(templates, scan.TemplateId)}</Table.Td>
              <Table.Td>{labelOf(nodes, scan.ScanNodeId) ?? 'Any node'}</Table.Td>
              <Table.Td>
                <RunStateBadge state={scan.RunState} title={scan.LastRun?.Error} />
              </Table.Td>
              <Table.Td style={{ whiteSpace: 'nowrap' }}>
                {scan.NextRunAt ? <DateTime value={scan.NextRunAt} /> : '—'}
              </Table.Td>
              {actions && <Table.Td>{actions(scan)}</Table.Td>}
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

/** What a run's results became: the counts of findings it changed (each linking to them), or why not yet. */
export function ImportCounts({
  report,
}: {
  report: {
    Run: { State: DiscoveryRunState };
    Import: { Id: string; Counts: Record<string, number> } | null;
    IngestError: string | null;
    Verify: { FindingIds: string[] } | null;
  };
}) {
  const { Import: results, IngestError: failed } = report;
  return (
    <Stack gap={2} data-testid="run-counts">
      {report.Verify && (
        <Text size="sm" c="dimmed">
          A Verify run: only its{' '}
          {report.Verify.FindingIds.length === 1 ? 'finding' : `${report.Verify.FindingIds.length} findings`}{' '}
          may be closed by it.
        </Text>
      )}
      {failed && (
        <Text size="sm" c="red">
          The results could not become findings yet: {failed}
        </Text>
      )}
      {results ? (
        <Text size="sm">
          {(['New', 'Fixed', 'Reopened'] as const).map((change) => (
            <span key={change}>
              <CountLink importId={results.Id} change={change} n={results.Counts[change] ?? 0} /> ·{' '}
            </span>
          ))}
          {results.Counts.Unchanged ?? 0} unchanged
        </Text>
      ) : (
        report.Run.State === 'Completed' &&
        !failed && (
          <Text size="sm" c="dimmed">
            Turning the results into findings…
          </Text>
        )
      )}
    </Stack>
  );
}

function CountLink({
  importId,
  change,
  n,
}: {
  importId: string;
  change: 'New' | 'Fixed' | 'Reopened';
  n: number;
}) {
  const text = `${n} ${change}`;
  if (n === 0)
    return (
      <Text component="span" size="sm">
        {text}
      </Text>
    );
  return (
    <Anchor
      component={Link}
      to={`/findings?${new URLSearchParams({ ImportId: importId, ImportChange: change })}`}
      size="sm"
    >
      {text}
    </Anchor>
  );
}

interface DeleteMutation {
  mutate: (id: string, options: { onSuccess: () => void }) => void;
  isPending: boolean;
  error: unknown;
}

/** A scan page's title, run state, Run now / Stop, Edit and Delete (with its confirmation). */
export function ScanHeader({
  scan,
  what,
  listPath,
  start,
  stop,
  remove,
  onEdit,
}: {
  scan: ListedScan;
  /** "system scan" or "web scan". */
  what: string;
  listPath: string;
  start: RunMutation;
  stop: RunMutation;
  remove: DeleteMutation;
  onEdit: () => void;
}) {
  const role = useSignedInSession().User.Role;
  const [deleteOpened, confirmDelete] = useDisclosure(false);
  const navigate = useNavigate();
  return (
    <Group justify="space-between" align="flex-start">
      <Group gap="sm">
        <Title order={1}>{scan.Name}</Title>
        <div aria-live="polite">
          <RunStateBadge state={scan.RunState} title={scan.LastRun?.Error} />
        </div>
      </Group>
      <Group gap="xs">
        {hasRole(role, 'Analyst') && <RunButtons scan={scan} start={start} stop={stop} />}
        {hasRole(role, 'Manager') && (
          <>
            <Button size="xs" variant="default" leftSection={<IconPencil size={14} />} onClick={onEdit}>
              Edit
            </Button>
            <Button
              size="xs"
              variant="default"
              color="red"
              leftSection={<IconTrash size={14} />}
              onClick={confirmDelete.open}
              disabled={isActive(scan.RunState)}
            >
              Delete
            </Button>
          </>
        )}
      </Group>
      <ConfirmModal
        opened={deleteOpened}
        onClose={confirmDelete.close}
        title={`Delete ${what}`}
        confirmLabel="Delete"
        confirmColor="red"
        pending={remove.isPending}
        error={remove.error}
        onConfirm={() => remove.mutate(scan.Id, { onSuccess: () => navigate(listPath) })}
      >
        <Text size="sm">Delete “{scan.Name}” and its runs? Its findings and the assets stay.</Text>
      </ConfirmModal>
    </Group>
  );
}

/** The latest run's answer: a skeleton, "not run yet" (404), an error, or the report. */
export function LatestRunQuery<T>({
  query,
  children,
}: {
  query: {
    isPending: boolean;
    isError: boolean;
    error: unknown;
    data: T | undefined;
    refetch: () => unknown;
  };
  children: (data: T) => ReactNode;
}) {
  if (query.isPending) return <TableSkeleton rows={3} />;
  if (query.isError) {
    // A scan that never ran has no latest run: that is not a failure.
    if (query.error instanceof ApiError && query.error.status === 404)
      return (
        <Paper withBorder p="lg" ta="center">
          <Text size="sm" c="dimmed">
            Not run yet. Run it now, or give it a schedule.
          </Text>
        </Paper>
      );
    return <QueryError error={query.error} onRetry={() => query.refetch()} />;
  }
  return query.data === undefined ? null : children(query.data);
}

/** The heading of the latest run: its state and when it started. */
export function RunHeading({
  run,
}: {
  run: {
    State: DiscoveryRunState;
    Error: string | null;
    StartedAt: string | null;
    CreatedAt: string;
    Refused: RunRefusals;
  };
}) {
  return (
    <>
      <Group justify="space-between" align="baseline">
        <Title order={2} size="h4" id="latest-run-title">
          Latest run
        </Title>
        <Group gap="sm">
          <RunStateBadge state={run.State} title={run.Error} />
          <Text size="sm" c="dimmed">
            <DateTime value={run.StartedAt ?? run.CreatedAt} />
          </Text>
        </Group>
      </Group>
      {run.Error && (
        <Text size="sm" c="red">
          {run.Error}
        </Text>
      )}
      <RefusedAddresses refused={run.Refused} />
    </>
  );
}

export interface RunRefusals {
  Count: number;
  Addresses: { Address: string; Rule: string; Message: string }[];
}

/** The addresses the scan node refused to send anything to, each with why: never only in its log. */
export function RefusedAddresses({ refused }: { refused: RunRefusals }) {
  if (refused.Count === 0) return null;
  const more = refused.Count - refused.Addresses.length;
  return (
    <Paper withBorder p="sm" radius="md" data-testid="refused-addresses">
      <Text size="sm" fw={600}>
        Refused, not scanned ({refused.Count.toLocaleString()})
      </Text>
      {refused.Addresses.map((a) => (
        <Text size="sm" key={a.Address}>
          <Text span ff="monospace">
            {a.Address}
          </Text>{' '}
          ({a.Rule}): {a.Message}
        </Text>
      ))}
      {more > 0 && (
        <Text size="sm" c="dimmed">
          and {more.toLocaleString()} more
        </Text>
      )}
    </Paper>
  );
}

/** A scan's schedule in words, with its next run. */
export function ScheduleText({
  schedule,
  next,
}: {
  schedule: { SchedulingMode: string } | null;
  next: string | null;
}) {
  if (!schedule || schedule.SchedulingMode === 'None') return <>On demand only</>;
  return (
    <>
      {schedule.SchedulingMode}
      {next && (
        <>
          , next <DateTime value={next} />
        </>
      )}
    </>
  );
}
