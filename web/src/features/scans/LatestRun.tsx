import { Anchor, Group, Stack, Text, Title } from '@mantine/core';
import type { ComponentType, ReactNode } from 'react';
import { Link } from 'react-router';
import { ApiError } from '../../api/client';
import { isActive, type RunState, type ScanHooks } from '../../api/scans';
import { DateTime } from '../../components/DateTime';
import { EmptyNote } from '../../components/EmptyState';
import { TableSkeleton } from '../../components/PageSkeleton';
import { QueryError } from '../../components/QueryError';
import { RefusedAddresses, type RunRefusals } from './RefusedAddresses';
import { RunStateBadge } from './RunStateBadge';
import { ScanFindings } from './ScanFindings';
import type { ListedScan } from './view';

/** What the latest-run answer of every kind that has one holds besides its results. */
export interface LatestRunLike {
  Run: {
    State: RunState;
    Error: string | null;
    StartedAt: string | null;
    CreatedAt: string;
    Refused: RunRefusals;
  };
  Import: { Id: string; Counts: Record<string, number> } | null;
  IngestError: string | null;
  Verify: { FindingIds: string[] } | null;
}

/**
 * The scan page's body for a kind whose runs answer with a latest-run report (system and web
 * scans): the facts, the latest run drawn by the kind's `Report`, and the findings the scan made.
 */
export function latestRunBody<S extends ListedScan, B, L extends LatestRunLike>(
  hooks: ScanHooks<S, B, L>,
  Report: ComponentType<{ report: L }>,
) {
  return function LatestRunBody({ scan, facts }: { scan: S; facts: ReactNode }) {
    const latest = hooks.useLatestRun(scan.Id, isActive(scan.RunState));
    return (
      <>
        {facts}
        <LatestRunQuery query={latest}>{(report) => <Report report={report} />}</LatestRunQuery>
        <ScanFindings scanId={scan.Id} />
      </>
    );
  };
}

/** The latest run's answer: a skeleton, "not run yet" (404), an error, or the report. */
function LatestRunQuery<T>({
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
      return <EmptyNote>Not run yet. Run it now, or give it a schedule.</EmptyNote>;
    return <QueryError error={query.error} onRetry={() => query.refetch()} />;
  }
  return query.data === undefined ? null : children(query.data);
}

/**
 * A latest run's report: its heading, what its results became, the kind's notes, then one card per
 * item it scanned (hosts, URLs), or a line saying there is none yet.
 */
export function LatestRunReport<T>({
  report,
  notes,
  items,
  renderItem,
  none,
}: {
  report: LatestRunLike;
  notes?: ReactNode;
  items: T[];
  renderItem: (item: T) => ReactNode;
  /** What to say when there is no item: while the run is under way, and after it. */
  none: { active: string; ended: string };
}) {
  return (
    <Stack gap="md" component="section" aria-labelledby="latest-run-title">
      <RunHeading run={report.Run} />
      <ImportCounts report={report} />
      {notes}
      {items.length === 0 ? (
        <EmptyNote>{isActive(report.Run.State) ? none.active : none.ended}</EmptyNote>
      ) : (
        items.map(renderItem)
      )}
    </Stack>
  );
}

/** The heading of the latest run: its state and when it started. */
function RunHeading({ run }: { run: LatestRunLike['Run'] }) {
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

/** What a run's results became: the counts of findings it changed (each linking to them), or why not yet. */
function ImportCounts({ report }: { report: LatestRunLike }) {
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
