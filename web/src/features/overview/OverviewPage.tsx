import {
  Anchor,
  Badge,
  Card,
  Group,
  SimpleGrid,
  Skeleton,
  Stack,
  Table,
  Text,
  ThemeIcon,
  Title,
} from '@mantine/core';
import { useDocumentTitle } from '@mantine/hooks';
import { Link } from 'react-router';
import { useSignedInSession } from '../../api/session';
import { useStatus } from '../../api/status';
import type { Role, ServiceStatus } from '../../api/types';
import { DateTime } from '../../components/DateTime';
import { QueryError } from '../../components/QueryError';
import { IconBook, IconExternalLink, IconKey, IconServer } from '../../icons';
import { roleLabel } from '../../labels';
import { DemoCard } from './DemoCard';
import { ExposureCard } from './ExposureCard';

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

  return (
    <Stack gap="lg">
      <div>
        <Title order={1}>Overview</Title>
        <Text size="lg" mt={4}>
          Welcome, {User.Name}. You are signed in to {Organization.Name}.
        </Text>
        <Group gap="xs" mt="xs">
          <Text size="sm" c="dimmed">
            Your role:
          </Text>
          <Badge variant="light">{roleLabel(User.Role)}</Badge>
          <Text size="sm" c="dimmed">
            {ROLE_SUMMARY[User.Role]}
          </Text>
        </Group>
      </div>

      {User.Role === 'Admin' && <DemoCard />}

      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="lg">
        <ExposureCard />
        <StatusCard />
        <Card withBorder padding="lg" radius="md" component="section" aria-labelledby="get-started-title">
          <Group gap="sm" mb="sm" wrap="nowrap">
            <ThemeIcon variant="light" size="lg" aria-hidden>
              <IconKey size={20} />
            </ThemeIcon>
            <Title order={2} size="h4" id="get-started-title">
              Get started with the API
            </Title>
          </Group>
          <Text size="sm" mb="md">
            Connect scripts, scanners and ticketing systems to Rampart. Create an API key for them, then send
            its access key and secret key in the <code>ApiAccessKey</code> and <code>ApiSecretKey</code>{' '}
            headers of each request.
          </Text>
          <Stack gap="xs" align="flex-start">
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
          </Stack>
        </Card>
      </SimpleGrid>
    </Stack>
  );
}

function StatusCard() {
  const status = useStatus();
  return (
    <Card withBorder padding="lg" radius="md" component="section" aria-labelledby="status-title">
      <Group gap="sm" mb="sm" justify="space-between">
        <Group gap="sm" wrap="nowrap">
          <ThemeIcon variant="light" size="lg" aria-hidden>
            <IconServer size={20} />
          </ThemeIcon>
          <Title order={2} size="h4" id="status-title">
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
        <Stack gap="xs" role="status" aria-label="Loading service status">
          <Skeleton height={18} />
          <Skeleton height={18} />
          <Skeleton height={18} />
        </Stack>
      ) : status.isError ? (
        <QueryError error={status.error} onRetry={() => status.refetch()} />
      ) : (
        <Table variant="vertical" layout="fixed" withRowBorders={false} verticalSpacing={4}>
          <Table.Tbody>
            <Table.Tr>
              <Table.Th w={140}>Version</Table.Th>
              <Table.Td>
                {status.data.Service} {status.data.Version}
              </Table.Td>
            </Table.Tr>
            <Table.Tr>
              <Table.Th>Database</Table.Th>
              <Table.Td>{DATABASE_NAMES[status.data.Database] ?? status.data.Database}</Table.Td>
            </Table.Tr>
            <Table.Tr>
              <Table.Th>Server time</Table.Th>
              <Table.Td>
                <DateTime value={status.data.Time} />
              </Table.Td>
            </Table.Tr>
            <Table.Tr>
              <Table.Th>API channel</Table.Th>
              <Table.Td>{status.data.Channel}</Table.Td>
            </Table.Tr>
          </Table.Tbody>
        </Table>
      )}
    </Card>
  );
}
