import { Badge, Card, SimpleGrid, Skeleton, Stack, Text, Title } from '@mantine/core';
import { useDocumentTitle } from '@mantine/hooks';
import { type ReactNode, useEffect } from 'react';
import { useLocation } from 'react-router';
import { useAccountDetails } from '../../api/account';
import { QueryError } from '../../components/QueryError';
import { roleLabel } from '../../labels';
import { ApiKeysSection } from './ApiKeysSection';
import { ChangePasswordForm } from './ChangePasswordForm';
import { MfaSection } from './MfaSection';
import { NotificationPreferencesSection } from './NotificationPreferencesSection';

export default function ProfilePage() {
  useDocumentTitle('My profile · Rampart');
  const details = useAccountDetails();
  const { hash, key } = useLocation();

  // The browser cannot scroll to /profile#api-keys itself: the section did not exist when the
  // address changed. Scroll again once the account card above it has its final height.
  const detailsSettled = !details.isPending;
  // biome-ignore lint/correctness/useExhaustiveDependencies: also on each visit (key) and once settled
  useEffect(() => {
    if (!hash) return;
    document.getElementById(decodeURIComponent(hash.slice(1)))?.scrollIntoView({ block: 'start' });
  }, [hash, key, detailsSettled]);

  return (
    <Stack gap="xl">
      <Title order={1}>My profile</Title>

      <Card withBorder padding="lg" radius="md" component="section" aria-labelledby="account-title">
        <Title order={2} size="h4" id="account-title" mb="md">
          Account
        </Title>
        {details.isPending ? (
          <SimpleGrid cols={{ base: 1, sm: 2 }} role="status" aria-label="Loading account details">
            {['name', 'email', 'role', 'organisation'].map((field) => (
              <Skeleton key={field} height={44} />
            ))}
          </SimpleGrid>
        ) : details.isError ? (
          <QueryError error={details.error} onRetry={() => details.refetch()} />
        ) : (
          <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="md" component="dl" m={0}>
            <Field label="Name">{details.data.User.Name}</Field>
            <Field label="Email">{details.data.User.Email}</Field>
            <Field label="Role">
              <Badge variant="light">{roleLabel(details.data.User.Role)}</Badge>
            </Field>
            <Field label="Organisation">{details.data.Organization.Name}</Field>
          </SimpleGrid>
        )}
      </Card>

      <ChangePasswordForm email={details.data?.User.Email} />

      <MfaSection />

      <ApiKeysSection />

      <NotificationPreferencesSection />
    </Stack>
  );
}

function Field({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div>
      <Text component="dt" size="xs" c="dimmed" tt="uppercase" fw={600} style={{ letterSpacing: '0.04em' }}>
        {label}
      </Text>
      <Text component="dd" m={0} mt={2} style={{ overflowWrap: 'anywhere' }}>
        {children}
      </Text>
    </div>
  );
}
