import { Alert, List, Stack, Text } from '@mantine/core';
import { type UnknownFormatProblem, useImportFormats } from '../../api/imports';
import type { Problem } from '../../api/types';
import { IconAlertCircle } from '../../icons';

/** A 422 `unknown-report-format`: why, and the formats Rampart reads. */
export function FormatsAlert({ problem }: { problem: Problem }) {
  const known = useImportFormats();
  const ids = (problem as UnknownFormatProblem).formats ?? known.data?.map((f) => f.Format) ?? [];
  // The detail speaks to API and CLI clients ("name it with Format (API) or --format (CLI)") and
  // ends with the same list as plain text: here the form's format choice is the way.
  const detail = (problem.detail ?? '')
    .replace(/\s*Rampart reads:.*$/s, '')
    .replace(/; (pass|name it with) Format\b.*$/, '.');
  return (
    <Alert color="red" variant="light" title={problem.title} icon={<IconAlertCircle />}>
      <Stack gap="xs">
        <Text size="sm">{detail || 'Rampart could not read this file.'}</Text>
        {ids.length > 0 && (
          <>
            <Text size="sm" id="known-formats">
              Rampart reads these formats; choose one above if the file is one of them:
            </Text>
            <List size="sm" spacing={2} aria-labelledby="known-formats" style={{ columns: '2 18rem' }}>
              {ids.map((id) => (
                <List.Item key={id}>{known.data?.find((f) => f.Format === id)?.Label ?? id}</List.Item>
              ))}
            </List>
          </>
        )}
      </Stack>
    </Alert>
  );
}
