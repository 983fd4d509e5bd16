import { Alert, Button, Card, Group, Text, ThemeIcon, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { errorMessage } from '../../api/client';
import { useHasAssets, useLoadDemo } from '../../api/demo';
import { IconServer } from '../../icons';
import { counted } from '../../labels';

/** Offered to Admins of an organisation with nothing in it yet. */
export function DemoCard() {
  const hasAssets = useHasAssets();
  const load = useLoadDemo();
  if (hasAssets.data !== false) return null;
  return (
    <Card withBorder padding="lg" radius="md" component="section" aria-labelledby="demo-title">
      <Group gap="sm" mb="xs">
        <ThemeIcon variant="light" size="lg">
          <IconServer size={18} />
        </ThemeIcon>
        <Title order={2} size="h4" id="demo-title">
          Start with demo data
        </Title>
      </Group>
      <Text size="sm" mb="md">
        Your organisation has no assets yet. Load a small demo estate (17 assets with real CVEs, three
        tickets) to see Rampart at work. Demo assets carry the tag “demo” and can be removed at any time (
        <Text span ff="monospace">
          rampart demo --remove
        </Text>
        , or DELETE /api/latest/demo).
      </Text>
      {load.error && (
        <Alert color="red" mb="sm">
          {errorMessage(load.error)}
        </Alert>
      )}
      <Button
        onClick={() =>
          load.mutate(undefined, {
            onSuccess: (r) =>
              notifications.show({
                color: 'green',
                message: `Loaded ${counted(r.Assets, 'asset')} and ${counted(r.Findings, 'finding')} of demo data.`,
              }),
          })
        }
        loading={load.isPending}
      >
        Load demo data
      </Button>
    </Card>
  );
}
