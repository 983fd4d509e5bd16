import { Alert, Button, Stack, Text } from '@mantine/core';
import { ApiError, errorMessage } from '../api/client';
import { IconAlertCircle, IconRefresh } from '../icons';

/** A failed load: the problem's detail and a way to try again. */
export function QueryError({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  const title = error instanceof ApiError ? error.problem.title : 'Something went wrong';
  return (
    <Alert color="red" variant="light" title={title} icon={<IconAlertCircle />}>
      <Stack gap="xs" align="flex-start">
        <Text size="sm">{errorMessage(error)}</Text>
        {onRetry && (
          <Button
            size="xs"
            variant="light"
            color="red"
            leftSection={<IconRefresh size={16} />}
            onClick={onRetry}
          >
            Retry
          </Button>
        )}
      </Stack>
    </Alert>
  );
}

/** A failed action inside a form or dialog: just the message. */
export function ErrorAlert({ error }: { error: unknown }) {
  if (!error) return null;
  return (
    <Alert color="red" variant="light" icon={<IconAlertCircle />}>
      {errorMessage(error)}
    </Alert>
  );
}
