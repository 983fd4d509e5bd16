import {
  Alert,
  Button,
  Card,
  Group,
  NumberInput,
  Select,
  SimpleGrid,
  Skeleton,
  Stack,
  Text,
  Title,
} from '@mantine/core';
import { useDocumentTitle } from '@mantine/hooks';
import { notifications } from '@mantine/notifications';
import { type FormEvent, useMemo, useState } from 'react';
import { ApiError } from '../../api/client';
import { SEVERITIES } from '../../api/findings';
import { useSignedInSession } from '../../api/session';
import { useSaveSettings, useSettings } from '../../api/settings';
import { hasRole, type Settings, type SlaDays } from '../../api/types';
import { ErrorAlert, QueryError } from '../../components/QueryError';
import { IconLock } from '../../icons';
import { AllowedTargetsSection } from './AllowedTargetsSection';
import { AuditRetentionSection } from './AuditRetentionSection';
import { RequireMfaSection } from './RequireMfaSection';
import { SsoSection } from './SsoSection';

export default function SettingsPage() {
  useDocumentTitle('Settings · Rampart');
  const canSave = hasRole(useSignedInSession().User.Role, 'Manager');
  const settings = useSettings();

  return (
    <Stack gap="lg">
      <div>
        <Title order={1}>Settings</Title>
        <Text size="sm" c="dimmed">
          How your organisation works with findings, and where its scans may go.
        </Text>
      </div>
      {!canSave && (
        <Alert variant="light" color="gray" icon={<IconLock />}>
          Only Managers and Admins can change the time to fix; you can see it.
        </Alert>
      )}
      <Card withBorder padding="lg" radius="md" component="section" aria-labelledby="sla-title">
        <Title order={2} size="h4" id="sla-title">
          Time to fix (SLA)
        </Title>
        <Text size="sm" c="dimmed" mb="md">
          Days to fix a finding of each severity, counted from when it was first seen. A finding whose
          vulnerability is known exploited (CISA KEV) is due by the KEV days when that comes sooner; CISA's
          own due date is shown on the finding for context. Leave a field empty for no deadline. New due dates
          apply to findings created or re-scored from now on.
        </Text>
        {settings.isPending ? (
          <SimpleGrid cols={{ base: 1, xs: 2, sm: 6 }} role="status" aria-label="Loading settings">
            {[...SEVERITIES, KEV].map((severity) => (
              <Skeleton key={severity} height={60} />
            ))}
          </SimpleGrid>
        ) : settings.isError ? (
          <QueryError error={settings.error} onRetry={() => settings.refetch()} />
        ) : (
          <SlaForm key={JSON.stringify(settings.data)} settings={settings.data} canSave={canSave} />
        )}
      </Card>
      <Card withBorder padding="lg" radius="md" component="section" aria-labelledby="time-zone-title">
        <Title order={2} size="h4" id="time-zone-title">
          Time zone
        </Title>
        <Text size="sm" c="dimmed" mb="md">
          Your organisation's days: trends count findings by calendar day in this time zone, and the day's
          snapshot is taken at 00:10 there.
        </Text>
        {settings.isPending ? (
          <Skeleton height={60} role="status" aria-label="Loading the time zone" />
        ) : settings.isError ? (
          <QueryError error={settings.error} onRetry={() => settings.refetch()} />
        ) : (
          <TimeZoneForm key={settings.data.TimeZone} settings={settings.data} canSave={canSave} />
        )}
      </Card>
      <AllowedTargetsSection />
      <RequireMfaSection />
      <AuditRetentionSection />
      <SsoSection />
    </Stack>
  );
}

/** The form's field for the KEV SLA, next to the severities' (KevSlaDays in the API). */
const KEV = 'Kev';

const validDays = (value: number | string | undefined): number | null | undefined => {
  if (value === '' || value === undefined) return null;
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= 3650
    ? value
    : undefined;
};

function SlaForm({ settings, canSave }: { settings: Settings; canSave: boolean }) {
  const save = useSaveSettings();
  const [days, setDays] = useState<Record<string, number | string>>(() => ({
    ...Object.fromEntries(SEVERITIES.map((severity) => [severity, settings.SlaDays[severity] ?? ''])),
    [KEV]: settings.KevSlaDays ?? '',
  }));
  const [errors, setErrors] = useState<Record<string, string | undefined>>({});

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const found: Record<string, string | undefined> = {};
    const body = {} as SlaDays;
    const invalid = 'Enter whole days from 1 to 3650, or leave empty.';
    for (const severity of SEVERITIES) {
      const value = validDays(days[severity]);
      if (value === undefined) found[severity] = invalid;
      else body[severity] = value;
    }
    const kev = validDays(days[KEV]);
    if (kev === undefined) found[KEV] = invalid;
    setErrors(found);
    if (Object.values(found).some(Boolean) || kev === undefined) return;
    save.mutate(
      { SlaDays: body, KevSlaDays: kev },
      {
        onSuccess: () => notifications.show({ color: 'green', message: 'Settings saved.' }),
        onError: (error) => {
          if (!(error instanceof ApiError)) return;
          setErrors({
            ...Object.fromEntries(
              SEVERITIES.map((severity) => [severity, error.fieldError(`/SlaDays/${severity}`)]),
            ),
            [KEV]: error.fieldError('/KevSlaDays'),
          });
        },
      },
    );
  };

  const fieldErrors = Object.values(errors).some(Boolean);

  return (
    <form onSubmit={submit} noValidate aria-labelledby="sla-title">
      <Stack gap="md">
        {!fieldErrors && <ErrorAlert error={save.error} />}
        <SimpleGrid cols={{ base: 1, xs: 2, sm: 6 }} spacing="sm">
          {[...SEVERITIES, KEV].map((severity) => (
            <NumberInput
              key={severity}
              label={severity === KEV ? 'Known exploited (KEV)' : severity}
              placeholder="No deadline"
              suffix={days[severity] === 1 ? ' day' : ' days'}
              min={1}
              max={3650}
              allowDecimal={false}
              allowNegative={false}
              value={days[severity]}
              onChange={(value) => setDays((current) => ({ ...current, [severity]: value }))}
              readOnly={!canSave}
              error={errors[severity]}
            />
          ))}
        </SimpleGrid>
        {canSave && (
          <Group>
            <Button type="submit" loading={save.isPending}>
              Save
            </Button>
          </Group>
        )}
      </Stack>
    </form>
  );
}

/** Every IANA time zone this browser knows, UTC first (the server checks the name again). */
function timeZoneNames(current: string): string[] {
  const known = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  return [...new Set(['UTC', current, ...known])];
}

function TimeZoneForm({ settings, canSave }: { settings: Settings; canSave: boolean }) {
  const save = useSaveSettings();
  const [zone, setZone] = useState<string | null>(settings.TimeZone);
  const zones = useMemo(() => timeZoneNames(settings.TimeZone), [settings.TimeZone]);
  const [error, setError] = useState<string | undefined>();

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!zone) {
      setError('Choose a time zone.');
      return;
    }
    setError(undefined);
    save.mutate(
      { SlaDays: settings.SlaDays, TimeZone: zone },
      {
        onSuccess: () => notifications.show({ color: 'green', message: 'Time zone saved.' }),
        onError: (e) => {
          if (e instanceof ApiError) setError(e.fieldError('/TimeZone'));
        },
      },
    );
  };

  return (
    <form onSubmit={submit} noValidate aria-labelledby="time-zone-title">
      <Stack gap="md">
        {!error && <ErrorAlert error={save.error} />}
        <Select
          label="IANA time zone"
          data={zones}
          value={zone}
          onChange={setZone}
          searchable
          nothingFoundMessage="No such time zone"
          readOnly={!canSave}
          error={error}
          maw={360}
        />
        {canSave && (
          <Group>
            <Button type="submit" loading={save.isPending}>
              Set time zone
            </Button>
          </Group>
        )}
      </Stack>
    </form>
  );
}
