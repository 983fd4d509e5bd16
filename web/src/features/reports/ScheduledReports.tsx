import {
  ActionIcon,
  Alert,
  Button,
  Group,
  Paper,
  Select,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
  Tooltip,
} from '@mantine/core';
import { useState } from 'react';
import { errorMessage } from '../../api/client';
import {
  type ReportDefinition,
  type ReportFormat,
  type ReportKind,
  useCreateDefinition,
  useDeleteDefinition,
  useReportDefinitions,
  useRunDefinition,
} from '../../api/reports';
import { DateTime } from '../../components/DateTime';
import { EmptyState } from '../../components/EmptyState';
import { TableSkeleton } from '../../components/PageSkeleton';
import { QueryError } from '../../components/QueryError';
import { TableHead } from '../../components/TableHead';
import { IconPlayerPlay, IconTrash } from '../../icons';
import { FORMAT_OPTIONS, KIND_OPTIONS } from './NewReportCard';
import { EMPTY_SCOPE, ScopeFields, type ScopeValue, scopeBody } from './ScopeFields';

const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'] as const;

const scheduleText = (d: ReportDefinition) => {
  const s = d.Schedule;
  if (!s) return 'By hand';
  if (s.SchedulingMode === 'Weekly') return `Weekly on ${(s.DaysOfWeek ?? []).join(', ')}`;
  if (s.SchedulingMode === 'Monthly') return `Monthly on day ${s.DayOfMonth ?? ''}`;
  return s.SchedulingMode;
};

/** Saved report definitions: made Weekly or Monthly and mailed to their recipients, or run by hand. */
export function ScheduledReports({ canEdit }: { canEdit: boolean }) {
  const definitions = useReportDefinitions();
  const run = useRunDefinition();
  const remove = useDeleteDefinition();
  if (definitions.isPending) return <TableSkeleton rows={3} />;
  if (definitions.isError && !definitions.data)
    return <QueryError error={definitions.error} onRetry={() => definitions.refetch()} />;
  const rows = definitions.data.pages.flatMap((p) => p.Items);
  return (
    <Stack gap="md">
      {canEdit && <NewDefinitionCard />}
      {rows.length === 0 ? (
        <EmptyState title="No scheduled reports" narrow>
          Save a report to have it made every week or month and mailed to its recipients.
        </EmptyState>
      ) : (
        <Table.ScrollContainer minWidth={800}>
          <Table striped verticalSpacing={6} horizontalSpacing="sm" fz="sm">
            <TableHead
              columns={[
                'Name',
                'Kind',
                'Format',
                'Schedule',
                'Next run',
                'Recipients',
                { ariaLabel: 'Actions' },
              ]}
            />
            <Table.Tbody>
              {rows.map((d) => (
                <Table.Tr key={d.Id}>
                  <Table.Td fw={500}>{d.Name}</Table.Td>
                  <Table.Td>{d.Kind}</Table.Td>
                  <Table.Td>{d.Format.toUpperCase()}</Table.Td>
                  <Table.Td>{scheduleText(d)}</Table.Td>
                  <Table.Td>
                    <DateTime value={d.NextRunAt} empty="—" />
                  </Table.Td>
                  <Table.Td>{d.Recipients.join(', ') || '—'}</Table.Td>
                  <Table.Td>
                    {canEdit && (
                      <Group gap={4} wrap="nowrap" justify="flex-end">
                        <Tooltip label="Make it now">
                          <ActionIcon
                            variant="subtle"
                            aria-label={`Run ${d.Name} now`}
                            onClick={() => run.mutate(d.Id)}
                          >
                            <IconPlayerPlay size={16} />
                          </ActionIcon>
                        </Tooltip>
                        <Tooltip label="Remove (its reports stay in the history)">
                          <ActionIcon
                            variant="subtle"
                            color="red"
                            aria-label={`Remove ${d.Name}`}
                            onClick={() => remove.mutate(d.Id)}
                          >
                            <IconTrash size={16} />
                          </ActionIcon>
                        </Tooltip>
                      </Group>
                    )}
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </Stack>
  );
}

function NewDefinitionCard() {
  const [name, setName] = useState('');
  const [kind, setKind] = useState<ReportKind>('Executive');
  const [format, setFormat] = useState<ReportFormat>('Pdf');
  const [scope, setScope] = useState<ScopeValue>(EMPTY_SCOPE);
  const [mode, setMode] = useState<'Weekly' | 'Monthly'>('Weekly');
  const [day, setDay] = useState<string>('Monday');
  const [dayOfMonth, setDayOfMonth] = useState<string>('1');
  const [time, setTime] = useState('08:00');
  const [recipients, setRecipients] = useState('');
  const create = useCreateDefinition();
  const timeZone = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  const submit = () => {
    const [h, m] = time.split(':').map(Number);
    const start = new Date();
    start.setHours(h ?? 8, m ?? 0, 0, 0);
    create.mutate(
      {
        Name: name.trim(),
        Kind: kind,
        Format: format,
        ...scopeBody(scope),
        Schedule: {
          SchedulingMode: mode,
          StartTime: start.toISOString(),
          TimeZone: timeZone,
          ...(mode === 'Weekly'
            ? { DaysOfWeek: [day as (typeof DAYS)[number]] }
            : { DayOfMonth: Number(dayOfMonth) }),
        },
        Recipients: recipients
          .split(/[,;\s]+/)
          .map((r) => r.trim())
          .filter(Boolean),
      },
      { onSuccess: () => setName('') },
    );
  };
  return (
    <Paper withBorder radius="md" p="md" component="section" aria-labelledby="new-definition-title">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
      >
        <Stack gap="sm">
          <Title order={3} size="h5" id="new-definition-title">
            Schedule a report
          </Title>
          <Group align="flex-end" gap="md">
            <TextInput
              label="Name"
              value={name}
              onChange={(e) => setName(e.currentTarget.value)}
              required
              w={260}
            />
            <Select
              label="Kind"
              data={KIND_OPTIONS}
              value={kind}
              onChange={(v) => v && setKind(v as ReportKind)}
              allowDeselect={false}
            />
            <Select
              label="Format"
              data={FORMAT_OPTIONS}
              value={format}
              onChange={(v) => v && setFormat(v as ReportFormat)}
              allowDeselect={false}
              w={110}
            />
          </Group>
          <ScopeFields value={scope} onChange={setScope} />
          <Group align="flex-end" gap="md">
            <Select
              label="Every"
              data={['Weekly', 'Monthly']}
              value={mode}
              onChange={(v) => v && setMode(v as 'Weekly' | 'Monthly')}
              allowDeselect={false}
              w={120}
            />
            {mode === 'Weekly' ? (
              <Select
                label="On"
                data={[...DAYS]}
                value={day}
                onChange={(v) => v && setDay(v)}
                allowDeselect={false}
                w={140}
              />
            ) : (
              <Select
                label="On day"
                data={Array.from({ length: 28 }, (_, i) => String(i + 1))}
                value={dayOfMonth}
                onChange={(v) => v && setDayOfMonth(v)}
                allowDeselect={false}
                w={100}
              />
            )}
            <TextInput
              label={`At (${timeZone})`}
              type="time"
              value={time}
              onChange={(e) => setTime(e.currentTarget.value)}
              w={160}
            />
          </Group>
          <TextInput
            label="Recipients"
            description="Email addresses, separated by commas: the report is attached (or linked when over 10 MiB)."
            value={recipients}
            onChange={(e) => setRecipients(e.currentTarget.value)}
            placeholder="ciso@example.com, soc@example.com"
          />
          {create.error && (
            <Alert color="red" variant="light" title="The schedule was not saved">
              {errorMessage(create.error)}
            </Alert>
          )}
          <Group>
            <Button type="submit" loading={create.isPending} disabled={!name.trim()}>
              Save schedule
            </Button>
          </Group>
          <Text size="xs" c="dimmed">
            A saved report keeps its scope: it is also how a findings filter is saved (see the API’s Filter).
          </Text>
        </Stack>
      </form>
    </Paper>
  );
}
