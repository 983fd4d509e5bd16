import {
  Anchor,
  Badge,
  Card,
  Group,
  Paper,
  Select,
  SimpleGrid,
  Skeleton,
  Stack,
  Text,
  ThemeIcon,
  Title,
} from '@mantine/core';
import { useDocumentTitle } from '@mantine/hooks';
import { lazy, Suspense, useMemo } from 'react';
import { Link } from 'react-router';
import { type DashboardFilter, useDashboard, useScanGroupNames } from '../../api/dashboard';
import { useSignedInSession } from '../../api/session';
import { useStatus } from '../../api/status';
import type { Role, ServiceStatus } from '../../api/types';
import { DateTime } from '../../components/DateTime';
import { QueryError } from '../../components/QueryError';
import { useUrlState } from '../../components/useUrlState';
import { IconBook, IconExternalLink, IconKey, IconServer } from '../../icons';
import { roleLabel } from '../../labels';
import { DemoCard } from './DemoCard';

// The charts and ECharts with them load after the page's first paint, in a chunk of their own.
const DashboardPanels = lazy(() => import('./dashboard/DashboardPanels'));

const ROLE_SUMMARY: Record<Role, string> = {
  ReadOnly: 'You can see your organisation’s data but not change it.',
  Analyst: 'You can see your organisation’s data and work with it.',
  Manager: 'You can work with your organisation’s data and manage the work of others.',
  Admin: 'You have every right in your organisation, including managing its users.',
};

const DATABASE_NAMES: Record<ServiceStatus['Database'], string> = {
  embedded: 'Embedded PostgreSQL server',
  postgresql: 'PostgreSQL',
};

export default function OverviewPage() {
  useDocumentTitle('Overview · Rampart');
  const { User, Organization } = useSignedInSession();
  const [params, update] = useUrlState();
  const tag = params.get('Tag') || undefined;
  // A tag wins when an address names both: the API takes one or the other.
  const scanGroupId = tag ? undefined : params.get('ScanGroupId') || undefined;
  const filter = useMemo<DashboardFilter>(
    () => (tag ? { Tag: tag } : scanGroupId ? { ScanGroupId: scanGroupId } : {}),
    [tag, scanGroupId],
  );
  const dashboard = useDashboard(filter);

  return (
    <Stack gap="md">
      <div>
        <Title order={1}>Overview</Title>
        <Group gap="xs" mt={4}>
          <Text>
            Welcome, {User.Name}. You are signed in to {Organization.Name}.
          </Text>
          <Badge variant="light">{roleLabel(User.Role)}</Badge>
          <Text size="sm" c="dimmed">
            {ROLE_SUMMARY[User.Role]}
          </Text>
        </Group>
      </div>

      {User.Role === 'Admin' && <DemoCard />}

      <FilterBar
        tags={dashboard.data?.Tags ?? []}
        tag={tag}
        scanGroupId={scanGroupId}
        onChange={(next) => update({ Tag: next.Tag, ScanGroupId: next.ScanGroupId })}
      />

      {dashboard.isPending ? (
        <PanelsLoading />
      ) : dashboard.isError ? (
        <QueryError error={dashboard.error} onRetry={() => dashboard.refetch()} />
      ) : (
        <Suspense fallback={<PanelsLoading />}>
          <DashboardPanels data={dashboard.data} filter={filter} />
        </Suspense>
      )}

      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="md">
        <StatusCard />
        <Card withBorder padding="md" radius="md" component="section" aria-labelledby="get-started-title">
          <Group gap="sm" mb="xs" wrap="nowrap">
            <ThemeIcon variant="light" size="md" aria-hidden>
              <IconKey size={16} />
            </ThemeIcon>
            <Title order={2} size="h5" id="get-started-title">
              Get started with the API
            </Title>
          </Group>
          <Text size="sm" mb="xs">
            Connect scripts, scanners and ticketing systems: create an API key, then send its access key and
            secret key in the <code>ApiAccessKey</code> and <code>ApiSecretKey</code> headers.
          </Text>
          <Group gap="md">
            <Anchor component={Link} to="/profile#api-keys" size="sm">
              <Group gap={6} wrap="nowrap">
                <IconKey size={16} />
                My profile → Configure API Keys
              </Group>
            </Anchor>
            <Anchor href="/apidoc/latest/" size="sm">
              <Group gap={6} wrap="nowrap">
                <IconBook size={16} />
                API documentation
                <IconExternalLink size={14} />
              </Group>
            </Anchor>
          </Group>
        </Card>
      </SimpleGrid>
    </Stack>
  );
}

function PanelsLoading() {
  return (
    <Stack gap="md" role="status" aria-label="Loading the dashboard">
      <Skeleton height={110} />
      <SimpleGrid cols={{ base: 1, lg: 2 }} spacing="md">
        <Skeleton height={320} />
        <Skeleton height={320} />
      </SimpleGrid>
    </Stack>
  );
}

/** Every figure below for one tag or one scan group (one or the other, as the API takes). */
function FilterBar({
  tags,
  tag,
  scanGroupId,
  onChange,
}: {
  tags: string[];
  tag: string | undefined;
  scanGroupId: string | undefined;
  onChange: (next: DashboardFilter) => void;
}) {
  const groups = useScanGroupNames();
  // A tag named in the address that no asset carries (any more) stays selectable.
  const tagOptions = tag && !tags.includes(tag) ? [tag, ...tags] : tags;
  return (
    <Paper withBorder p="sm" radius="md" component="section" aria-label="Dashboard filter">
      <Group gap="md" align="flex-end">
        <Select
          label="Tag"
          placeholder={tagOptions.length ? 'All assets' : 'No tags yet'}
          data={tagOptions}
          value={tag ?? null}
          onChange={(value) => onChange(value ? { Tag: value } : {})}
          searchable
          clearable
          nothingFoundMessage="No such tag"
          w={{ base: '100%', xs: 240 }}
        />
        <Text size="sm" c="dimmed" pb={8}>
          or
        </Text>
        <Select
          label="Scan group"
          placeholder={groups.data?.length ? 'All scan groups' : 'No scan groups yet'}
          data={(groups.data ?? []).map((g) => ({ value: g.Id, label: g.Name }))}
          value={scanGroupId ?? null}
          onChange={(value) => onChange(value ? { ScanGroupId: value } : {})}
          searchable
          clearable
          nothingFoundMessage="No such scan group"
          w={{ base: '100%', xs: 280 }}
        />
        <Text size="xs" c="dimmed" pb={8} style={{ flex: 1, minWidth: 200 }}>
          The charts and figures cover{' '}
          {tag
            ? `assets tagged “${tag}”`
            : scanGroupId
              ? 'the scan group’s findings'
              : 'your whole organisation'}
          ; click a figure to list the findings behind it.
        </Text>
      </Group>
    </Paper>
  );
}

function StatusCard() {
  const status = useStatus();
  return (
    <Card withBorder padding="md" radius="md" component="section" aria-labelledby="status-title">
      <Group gap="sm" mb="xs" justify="space-between">
        <Group gap="sm" wrap="nowrap">
          <ThemeIcon variant="light" size="md" aria-hidden>
            <IconServer size={16} />
          </ThemeIcon>
          <Title order={2} size="h5" id="status-title">
            Service status
          </Title>
        </Group>
        {status.data && (
          <Badge color="green" variant="light">
            Operational
          </Badge>
        )}
      </Group>
      {status.isPending ? (
        <Skeleton height={40} role="status" aria-label="Loading service status" />
      ) : status.isError ? (
        <QueryError error={status.error} onRetry={() => status.refetch()} />
      ) : (
        <Text size="sm">
          {status.data.Service} {status.data.Version} ·{' '}
          {DATABASE_NAMES[status.data.Database] ?? status.data.Database} · API channel {status.data.Channel} ·
          server time <DateTime value={status.data.Time} />
        </Text>
      )}
    </Card>
  );
}
