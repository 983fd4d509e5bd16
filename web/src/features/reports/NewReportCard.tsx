import { Alert, Button, Group, Paper, SegmentedControl, Select, Stack, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { ApiError, errorMessage } from '../../api/client';
import { type ReportFormat, type ReportKind, useCreateReport } from '../../api/reports';
import { EMPTY_SCOPE, ScopeFields, type ScopeValue, scopeBody } from './ScopeFields';

export const KIND_OPTIONS = [
  { value: 'Executive', label: 'Executive summary' },
  { value: 'Technical', label: 'Technical report' },
];
export const FORMAT_OPTIONS = [
  { value: 'Pdf', label: 'PDF' },
  { value: 'Html', label: 'HTML' },
  { value: 'Csv', label: 'CSV' },
];

/** Makes a report now: its kind, format and scope; a job makes it and the history shows it. */
export function NewReportCard() {
  const [kind, setKind] = useState<ReportKind>('Executive');
  const [format, setFormat] = useState<ReportFormat>('Pdf');
  const [scope, setScope] = useState<ScopeValue>(EMPTY_SCOPE);
  const create = useCreateReport();
  const error = create.error;
  const fieldError =
    error instanceof ApiError ? (error.fieldError('/Tag') ?? error.fieldError('/ScanGroupId')) : undefined;
  return (
    <Paper withBorder radius="md" p="md" component="section" aria-labelledby="new-report-title">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate({ Kind: kind, Format: format, ...scopeBody(scope) });
        }}
      >
        <Stack gap="sm">
          <Title order={2} size="h4" id="new-report-title">
            New report
          </Title>
          <Text size="sm" c="dimmed">
            An executive summary has the headline figures, trends and the riskiest assets with the dashboard’s
            charts; a technical report lists every open finding with its solution.
          </Text>
          <Group align="flex-end" gap="md">
            <Stack gap={6}>
              <Text size="sm" fw={500} id="kind-label">
                Kind
              </Text>
              <SegmentedControl
                aria-labelledby="kind-label"
                value={kind}
                onChange={(v) => setKind(v as ReportKind)}
                data={KIND_OPTIONS}
              />
            </Stack>
            <Select
              label="Format"
              data={FORMAT_OPTIONS}
              value={format}
              onChange={(v) => v && setFormat(v as ReportFormat)}
              allowDeselect={false}
              w={120}
            />
          </Group>
          <ScopeFields value={scope} onChange={setScope} error={fieldError} />
          {error && !fieldError && (
            <Alert color="red" variant="light" title="The report was not made">
              {errorMessage(error)}
            </Alert>
          )}
          {create.isSuccess && (
            <Text size="sm" c="dimmed" role="status">
              “{create.data.Name}” is queued: follow it in the history below.
            </Text>
          )}
          <Group>
            <Button type="submit" loading={create.isPending}>
              Make report
            </Button>
          </Group>
        </Stack>
      </form>
    </Paper>
  );
}
