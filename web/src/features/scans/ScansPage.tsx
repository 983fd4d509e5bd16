import { Alert, Anchor, Button, Stack } from '@mantine/core';
import { useDisclosure, useDocumentTitle } from '@mantine/hooks';
import { useQuery } from '@tanstack/react-query';
import { Link, useNavigate } from 'react-router';
import { api } from '../../api/client';
import { useSignedInSession } from '../../api/session';
import { hasRole, type ResponseOf } from '../../api/types';
import { LoadMore } from '../../components/LoadMore';
import { PageHeader } from '../../components/PageHeader';
import { TableSkeleton } from '../../components/PageSkeleton';
import { QueryError } from '../../components/QueryError';
import { IconInfoCircle, IconPlus } from '../../icons';
import { ScanFormModal } from './ScanFormModal';
import { ScanTable } from './ScanTable';
import { type ListedScan, type ScanKindView, wordsOf } from './view';
import { SCAN_VIEWS, type ScanViewName } from './views';

/** The scans of one kind: what they do, New, and the list (Run now / Stop for those who may). */
export default function ScansPage({ kind }: { kind: ScanViewName }) {
  return SCAN_VIEWS[kind]((view) => <KindScansPage key={kind} view={view} />);
}

function KindScansPage<S extends ListedScan, B, F extends string>({ view }: { view: ScanKindView<S, B, F> }) {
  const words = wordsOf(view.labels);
  useDocumentTitle(`${words.title} · Rampart`);
  const role = useSignedInSession().User.Role;
  const [formOpened, form] = useDisclosure(false);
  const navigate = useNavigate();
  return (
    <Stack gap="lg">
      <PageHeader
        title={words.title}
        action={
          hasRole(role, 'Manager') && (
            <Button leftSection={<IconPlus size={16} />} onClick={form.open}>
              {words.newButton}
            </Button>
          )
        }
      >
        {view.labels.intro}
      </PageHeader>
      {view.warnNothingAllowed && <NothingAllowed />}
      <ScanList view={view} canRun={hasRole(role, 'Analyst')} />
      <ScanFormModal
        view={view}
        opened={formOpened}
        onClose={form.close}
        onSaved={(scan) => navigate(`${view.path}/${scan.Id}`)}
      />
    </Stack>
  );
}

/** Whether the organisation allows any target: until it does, nothing can be scanned. */
function useAllowsAnything() {
  return useQuery({
    queryKey: ['allowed-targets', 'list'],
    queryFn: ({ signal }) => api<ResponseOf<'listAllowedTargets'>>('/allowedtargets', { signal }),
    select: (page) => page.Items.some((t) => t.Kind === 'Allowed'),
  });
}

function NothingAllowed() {
  const allows = useAllowsAnything();
  if (allows.data !== false) return null;
  return (
    <Alert color="yellow" icon={<IconInfoCircle size={18} />} title="Nothing can be scanned yet">
      Scans only go to the ranges an Admin has allowed.{' '}
      <Anchor component={Link} to="/settings#allowed-targets">
        Allow a range in Settings
      </Anchor>
      .
    </Alert>
  );
}

function ScanList<S extends ListedScan, B, F extends string>({
  view,
  canRun,
}: {
  view: ScanKindView<S, B, F>;
  canRun: boolean;
}) {
  const scans = view.hooks.useList();
  if (scans.isPending) return <TableSkeleton rows={3} />;
  if (scans.isError && !scans.data) return <QueryError error={scans.error} onRetry={() => scans.refetch()} />;
  const rows = scans.data.pages.flatMap((p) => p.Items);
  return (
    <Stack gap="sm">
      <ScanTable view={view} rows={rows} canRun={canRun} />
      <LoadMore query={scans} shown={rows.length} total={scans.data.pages[0]?.TotalCount} what="scans" />
    </Stack>
  );
}
