import { Button, Stack, Text, Title } from '@mantine/core';
import { useDocumentTitle } from '@mantine/hooks';
import { Link } from 'react-router';
import { IconArrowLeft } from '../../icons';

/**
 * Also shown for pages the user's role does not reach, so that they need not tell
 * "does not exist" from "not for you".
 */
export function NotFoundPage({ notAllowed = false }: { notAllowed?: boolean }) {
  useDocumentTitle('Page not found · Rampart');
  return (
    <Stack gap="md" align="flex-start" py="xl">
      <Text c="dimmed" fw={700} fz={48} lh={1} aria-hidden>
        404
      </Text>
      <Title order={1}>Page not found</Title>
      <Text>
        {notAllowed
          ? 'This page is not available to you: your role does not allow it. Ask an Admin of your organisation if you need access.'
          : 'There is no page at this address. Check the address, or go back to the overview.'}
      </Text>
      <Button component={Link} to="/" variant="light" leftSection={<IconArrowLeft size={16} />}>
        Back to Overview
      </Button>
    </Stack>
  );
}
