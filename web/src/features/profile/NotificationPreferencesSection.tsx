import {
  Alert,
  Badge,
  Button,
  Card,
  Checkbox,
  Group,
  Radio,
  SimpleGrid,
  Skeleton,
  Stack,
  Table,
  Text,
  Title,
} from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { type FormEvent, useEffect, useState } from 'react';
import { useNotificationPreferences, useSaveNotificationPreferences } from '../../api/account';
import type { NotificationPreferences } from '../../api/types';
import { DateTime } from '../../components/DateTime';
import { ErrorAlert, QueryError } from '../../components/QueryError';
import { TableHead } from '../../components/TableHead';
import { IconAlertTriangle } from '../../icons';

type Mode = NotificationPreferences['Mode'];
type EmailState = NotificationPreferences['Recent'][number]['State'];

/** The families of event types, in the catalogue's order, as the checkboxes group them. */
const FAMILIES: [string, string][] = [
  ['finding', 'Findings'],
  ['scan', 'Scans'],
  ['import', 'Imports'],
  ['ticket', 'Tickets'],
  ['risk_acceptance', 'Risk acceptances'],
  ['apikey', 'API keys'],
  ['user', 'Users'],
  ['notification', 'Notification endpoints'],
];

const STATE_COLORS: Record<EmailState, string> = {
  Sent: 'green',
  Pending: 'yellow',
  Failed: 'red',
  Skipped: 'gray',
};

export function NotificationPreferencesSection() {
  const preferences = useNotificationPreferences();
  return (
    <Card
      withBorder
      padding="lg"
      radius="md"
      component="section"
      id="notifications"
      aria-labelledby="notifications-title"
    >
      <Title order={2} size="h4" id="notifications-title">
        Email notifications
      </Title>
      <Text size="sm" c="dimmed" mb="md">
        Choose what Rampart tells you by email, as it happens or in one email a day. Scan and group
        notifications set on a scan go to the addresses named there, whatever you choose here.
      </Text>
      {preferences.isPending ? (
        <Stack role="status" aria-label="Loading notification preferences">
          <Skeleton height={36} />
          <Skeleton height={160} />
        </Stack>
      ) : preferences.isError ? (
        <QueryError error={preferences.error} onRetry={() => preferences.refetch()} />
      ) : (
        <PreferencesForm current={preferences.data} />
      )}
    </Card>
  );
}

function PreferencesForm({ current }: { current: NotificationPreferences }) {
  const save = useSaveNotificationPreferences();
  const [types, setTypes] = useState<string[]>(current.EventTypes);
  const [mode, setMode] = useState<Mode>(current.Mode);
  // What the server holds, again, after each save (its order is the catalogue's).
  useEffect(() => {
    setTypes(current.EventTypes);
    setMode(current.Mode);
  }, [current]);

  const dirty = mode !== current.Mode || [...types].sort().join() !== [...current.EventTypes].sort().join();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate(
      { EventTypes: types, Mode: mode },
      { onSuccess: () => notifications.show({ color: 'green', message: 'Notification preferences saved.' }) },
    );
  };

  const families = FAMILIES.map(([prefix, label]) => ({
    label,
    items: current.AvailableEventTypes.filter((t) => t.Type.startsWith(`${prefix}.`)),
  })).filter((f) => f.items.length > 0);

  return (
    <form onSubmit={submit} noValidate aria-labelledby="notifications-title">
      <Stack gap="md">
        {!current.Email.Configured && (
          <Alert color="yellow" variant="light" icon={<IconAlertTriangle />} title="Email is not configured">
            This server has no SMTP server yet (RAMPART_SMTP_URL), so no email can be sent. Your choices are
            kept, and your email waits until an administrator configures one.
          </Alert>
        )}
        <Text size="sm">
          Email goes to <strong>{current.Email.Address}</strong>, the address of your account.
        </Text>
        <ErrorAlert error={save.error} />
        <Radio.Group
          label="When"
          value={mode}
          onChange={(value) => setMode(value as Mode)}
          description="A daily digest arrives shortly after midnight in your organisation’s time zone, with the day’s events."
        >
          <Group mt="xs">
            <Radio value="Immediate" label="As it happens" />
            <Radio value="DailyDigest" label="Daily digest" />
          </Group>
        </Radio.Group>
        <Checkbox.Group label="What" value={types} onChange={setTypes}>
          <SimpleGrid cols={{ base: 1, sm: 2, md: 3 }} spacing="lg" mt="xs">
            {families.map((family) => (
              <fieldset key={family.label} style={{ border: 0, margin: 0, padding: 0, minWidth: 0 }}>
                <Text component="legend" size="sm" fw={600} mb={6}>
                  {family.label}
                </Text>
                <Stack gap={6}>
                  {family.items.map((t) => (
                    <Checkbox key={t.Type} value={t.Type} label={t.Title} />
                  ))}
                </Stack>
              </fieldset>
            ))}
          </SimpleGrid>
        </Checkbox.Group>
        <Group>
          <Button type="submit" loading={save.isPending} disabled={!dirty}>
            Save notification preferences
          </Button>
          {current.UpdatedAt && (
            <Text size="xs" c="dimmed">
              Last saved <DateTime value={current.UpdatedAt} />
            </Text>
          )}
        </Group>
        {current.Recent.length > 0 && <RecentEmail recent={current.Recent} />}
      </Stack>
    </form>
  );
}

function RecentEmail({ recent }: { recent: NotificationPreferences['Recent'] }) {
  return (
    <Stack gap="xs">
      <Title order={3} size="h5">
        Your latest email
      </Title>
      <Table.ScrollContainer minWidth={640}>
        <Table striped verticalSpacing="xs" fz="sm">
          <TableHead columns={['Event', 'When', 'Queued', 'State', 'Last error']} />
          <Table.Tbody>
            {recent.map((r) => (
              <Table.Tr key={`${r.EventType}-${r.CreatedAt}-${r.State}`}>
                <Table.Td>{r.EventType}</Table.Td>
                <Table.Td>{r.Mode === 'DailyDigest' ? 'Daily digest' : 'As it happens'}</Table.Td>
                <Table.Td>
                  <DateTime value={r.CreatedAt} />
                </Table.Td>
                <Table.Td>
                  <Badge variant="light" color={STATE_COLORS[r.State]}>
                    {r.State}
                  </Badge>
                </Table.Td>
                <Table.Td style={{ overflowWrap: 'anywhere' }}>{r.LastError ?? ''}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Stack>
  );
}
