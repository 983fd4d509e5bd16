import { Alert, Anchor, Card, Skeleton, Stack, Switch, Text, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { Link } from 'react-router';
import { useMfaStatus } from '../../api/mfa';
import { useSignedInSession } from '../../api/session';
import { useSaveSettings, useSettings } from '../../api/settings';
import { ErrorAlert, QueryError } from '../../components/QueryError';
import { IconInfoCircle } from '../../icons';

/** Whether password users must use two-step verification (RequireMfa); only an Admin changes it. */
export function RequireMfaSection() {
  const settings = useSettings();
  const save = useSaveSettings();
  const isAdmin = useSignedInSession().User.Role === 'Admin';
  const own = useMfaStatus();
  // Turning it on while one has no factor oneself is allowed, but said first.
  const ownMissing = own.data?.PasswordUser && !own.data.Enabled;

  return (
    <Card withBorder padding="lg" radius="md" component="section" aria-labelledby="require-mfa-title">
      <Title order={2} size="h4" id="require-mfa-title">
        Sign-in security
      </Title>
      <Text size="sm" c="dimmed" mb="md">
        When two-step verification is required, everyone who signs in with a password must use an
        authenticator app: someone without one sets it up at their next sign-in, before getting in. Sessions
        already open continue until they end. API keys are not affected. Only an Admin can change this.
      </Text>
      {settings.isPending ? (
        <Skeleton height={32} maw={420} role="status" aria-label="Loading settings" />
      ) : settings.isError ? (
        <QueryError error={settings.error} onRetry={() => settings.refetch()} />
      ) : (
        <Stack gap="sm" maw={560}>
          <Switch
            label="Require two-step verification for password sign-in"
            checked={settings.data.RequireMfa}
            disabled={!isAdmin || save.isPending}
            onChange={(event) => {
              const RequireMfa = event.currentTarget.checked;
              // The SLAs as they are: this switch changes RequireMfa only.
              save.mutate(
                { SlaDays: settings.data.SlaDays, KevSlaDays: settings.data.KevSlaDays, RequireMfa },
                {
                  onSuccess: () =>
                    notifications.show({
                      color: 'green',
                      message: RequireMfa
                        ? 'Two-step verification is now required at sign-in.'
                        : 'Two-step verification is no longer required.',
                    }),
                },
              );
            }}
          />
          {isAdmin && ownMissing && !settings.data.RequireMfa && (
            <Alert color="blue" variant="light" icon={<IconInfoCircle />}>
              You have not set up two-step verification yourself: do it first in{' '}
              <Anchor component={Link} to="/profile#two-step" size="sm">
                My profile
              </Anchor>
              , or you will be asked to at your next sign-in.
            </Alert>
          )}
          <ErrorAlert error={save.error} />
        </Stack>
      )}
    </Card>
  );
}
