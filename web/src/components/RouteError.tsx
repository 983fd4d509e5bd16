import { Alert, Button, Center, Code, Group, Stack, Text } from '@mantine/core';
import { Link, useRouteError } from 'react-router';
import { IconAlertCircle } from '../icons';

/** A page that crashed while rendering, or whose code failed to download (e.g. after an upgrade). */
export function RouteError() {
  const error = useRouteError();
  const message = error instanceof Error ? error.message : String(error);
  const stale =
    /dynamically imported module|Importing a module script failed|error loading dynamically/i.test(message);
  return (
    <Center p="lg">
      <Alert
        color="red"
        variant="light"
        icon={<IconAlertCircle />}
        title={stale ? 'Rampart was updated' : 'This page could not be shown'}
        maw={640}
        w="100%"
      >
        <Stack gap="sm">
          <Text size="sm">
            {stale
              ? 'A newer version of Rampart is available. Reload the page to continue.'
              : 'Something went wrong while showing this page. Reloading usually helps.'}
          </Text>
          {!stale && <Code block>{message}</Code>}
          <Group gap="sm">
            <Button size="xs" onClick={() => window.location.reload()}>
              Reload
            </Button>
            <Button size="xs" variant="default" component={Link} to="/">
              Back to Overview
            </Button>
          </Group>
        </Stack>
      </Alert>
    </Center>
  );
}
