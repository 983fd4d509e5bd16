import { Button, Card, Checkbox, Group, NumberInput, Skeleton, Stack, Text, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { type FormEvent, useState } from 'react';
import { ApiError } from '../../api/client';
import { useSignedInSession } from '../../api/session';
import { useSaveSettings, useSettings } from '../../api/settings';
import type { Settings } from '../../api/types';
import { ErrorAlert, QueryError } from '../../components/QueryError';

/** How long the audit log keeps its entries (AuditRetentionDays); only an Admin changes it. */
export function AuditRetentionSection() {
  const settings = useSettings();
  const isAdmin = useSignedInSession().User.Role === 'Admin';
  return (
    <Card withBorder padding="lg" radius="md" component="section" aria-labelledby="audit-retention-title">
      <Title order={2} size="h4" id="audit-retention-title">
        Audit log retention
      </Title>
      <Text size="sm" c="dimmed" mb="md">
        Days the audit log keeps an entry, from 30 to 3650; older entries are removed once a day. Only an
        Admin can change this.
      </Text>
      {settings.isPending ? (
        <Skeleton height={60} maw={320} role="status" aria-label="Loading settings" />
      ) : settings.isError ? (
        <QueryError error={settings.error} onRetry={() => settings.refetch()} />
      ) : (
        <RetentionForm
          key={String(settings.data.AuditRetentionDays)}
          settings={settings.data}
          canSave={isAdmin}
        />
      )}
    </Card>
  );
}

function RetentionForm({ settings, canSave }: { settings: Settings; canSave: boolean }) {
  const save = useSaveSettings();
  const [forever, setForever] = useState(settings.AuditRetentionDays === null);
  const [days, setDays] = useState<number | string>(settings.AuditRetentionDays ?? 365);
  const [error, setError] = useState<string | undefined>();

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const value = forever ? null : days;
    if (
      value !== null &&
      !(typeof value === 'number' && Number.isInteger(value) && value >= 30 && value <= 3650)
    ) {
      setError('Enter whole days from 30 to 3650.');
      return;
    }
    setError(undefined);
    // The SLAs as they are: this form changes the retention only.
    save.mutate(
      { SlaDays: settings.SlaDays, KevSlaDays: settings.KevSlaDays, AuditRetentionDays: value },
      {
        onSuccess: () => notifications.show({ color: 'green', message: 'Audit log retention saved.' }),
        onError: (e) => {
          if (e instanceof ApiError) setError(e.fieldError('/AuditRetentionDays'));
        },
      },
    );
  };

  return (
    <form onSubmit={submit} noValidate aria-labelledby="audit-retention-title">
      <Stack gap="sm" maw={420}>
        {!error && <ErrorAlert error={save.error} />}
        <NumberInput
          label="Keep entries for"
          suffix=" days"
          min={30}
          max={3650}
          allowDecimal={false}
          allowNegative={false}
          value={forever ? '' : days}
          placeholder={forever ? 'For ever' : undefined}
          onChange={setDays}
          disabled={forever}
          readOnly={!canSave}
          error={error}
        />
        <Checkbox
          label="Keep every entry for ever"
          checked={forever}
          onChange={(event) => setForever(event.currentTarget.checked)}
          disabled={!canSave}
        />
        {canSave && (
          <Group>
            <Button type="submit" loading={save.isPending}>
              Save retention
            </Button>
          </Group>
        )}
      </Stack>
    </form>
  );
}
