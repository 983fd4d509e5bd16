import { Anchor, Badge, Button, Card, Code, Group, Stack, Table, Text, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useState } from 'react';
import { useApiKeys, useRevokeApiKey } from '../../api/apikeys';
import type { ApiKey, ApiKeyStatus } from '../../api/types';
import { ConfirmModal } from '../../components/ConfirmModal';
import { DateTime } from '../../components/DateTime';
import { TableSkeleton } from '../../components/PageSkeleton';
import { QueryError } from '../../components/QueryError';
import { TableHead } from '../../components/TableHead';
import { IconPlus } from '../../icons';
import { AddApiKeyModal } from './AddApiKeyModal';

const STATUS_COLORS: Record<ApiKeyStatus, string> = { Active: 'green', Expired: 'gray', Revoked: 'red' };

export function ApiKeysSection() {
  const keys = useApiKeys();
  const revoke = useRevokeApiKey();
  const [adding, setAdding] = useState(false);
  // Kept after the dialog closes so its text does not vanish during the closing animation.
  const [target, setTarget] = useState<ApiKey | null>(null);
  const [confirming, setConfirming] = useState(false);

  const askRevoke = (key: ApiKey) => {
    revoke.reset();
    setTarget(key);
    setConfirming(true);
  };

  const confirmRevoke = () => {
    if (!target) return;
    revoke.mutate(target.Id, {
      onSuccess: (key) => {
        setConfirming(false);
        notifications.show({ color: 'green', message: `API key “${key.Name}” revoked.` });
      },
    });
  };

  return (
    <Card
      withBorder
      padding="lg"
      radius="md"
      component="section"
      id="api-keys"
      aria-labelledby="api-keys-title"
    >
      <Group justify="space-between" align="flex-start" mb="xs">
        <Title order={2} size="h4" id="api-keys-title">
          Configure API Keys
        </Title>
        <Button leftSection={<IconPlus size={16} />} onClick={() => setAdding(true)}>
          Add API key
        </Button>
      </Group>
      <Stack gap={4} mb="md">
        <Text size="sm" c="dimmed">
          An API key lets a script or an integration call the Rampart API as you, with your role. It sends the
          access key in the <Code>ApiAccessKey</Code> header and the secret key in the{' '}
          <Code>ApiSecretKey</Code> header. The secret key is shown only when you create the key. Revoke a key
          you no longer use or that may have been exposed: it stops working at once.
        </Text>
        <Text size="sm">
          <Anchor href="/apidoc/latest/">Read the API documentation</Anchor>
        </Text>
      </Stack>

      {keys.isPending ? (
        <TableSkeleton />
      ) : keys.isError ? (
        <QueryError error={keys.error} onRetry={() => keys.refetch()} />
      ) : keys.data.Items.length === 0 ? (
        <Text size="sm" c="dimmed" py="md">
          You have no API keys yet. Add one to call the API from a script or an integration.
        </Text>
      ) : (
        <Table.ScrollContainer minWidth={820}>
          <Table striped highlightOnHover verticalSpacing="xs" fz="sm">
            <TableHead
              columns={[
                'Name',
                'Access key',
                'Created',
                'Last used',
                'Expires',
                'Status',
                { hidden: 'Actions' },
              ]}
            />
            <Table.Tbody>
              {keys.data.Items.map((key) => (
                <Table.Tr key={key.Id}>
                  <Table.Td style={{ overflowWrap: 'anywhere' }}>{key.Name}</Table.Td>
                  <Table.Td>
                    <Code>{key.AccessKey}</Code>
                  </Table.Td>
                  <Table.Td>
                    <DateTime value={key.CreatedAt} />
                  </Table.Td>
                  <Table.Td>
                    <DateTime value={key.LastUsedAt} />
                  </Table.Td>
                  <Table.Td>
                    <DateTime value={key.ExpiresAt} />
                  </Table.Td>
                  <Table.Td>
                    <Badge color={STATUS_COLORS[key.Status]} variant="light">
                      {key.Status}
                    </Badge>
                  </Table.Td>
                  <Table.Td ta="right">
                    {key.Status === 'Active' && (
                      <Button
                        size="compact-sm"
                        variant="subtle"
                        color="red"
                        aria-label={`Revoke ${key.Name}`}
                        onClick={() => askRevoke(key)}
                      >
                        Revoke
                      </Button>
                    )}
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}

      <AddApiKeyModal opened={adding} onClose={() => setAdding(false)} />

      <ConfirmModal
        opened={confirming}
        onClose={() => setConfirming(false)}
        title="Revoke API key"
        confirmLabel="Revoke"
        onConfirm={confirmRevoke}
        mutation={revoke}
      >
        <Text size="sm">
          Revoke “{target?.Name}” (access key <Code>{target?.AccessKey}</Code>)? Scripts and integrations that
          use it stop working at once. This cannot be undone.
        </Text>
      </ConfirmModal>
    </Card>
  );
}
