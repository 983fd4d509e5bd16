import { ActionIcon, Badge, Button, Stack, Table, Text, Tooltip } from '@mantine/core';
import { useDocumentTitle } from '@mantine/hooks';
import { notifications } from '@mantine/notifications';
import { useState } from 'react';
import { ConfirmModal } from '../../components/ConfirmModal';
import { DateTime } from '../../components/DateTime';
import { PageHeader } from '../../components/PageHeader';
import { TableSkeleton } from '../../components/PageSkeleton';
import { QueryError } from '../../components/QueryError';
import { TableHead } from '../../components/TableHead';
import { IconPlus, IconTrash } from '../../icons';
import { type ScanNode, useRevokeScanNode, useScanNodes } from './api';
import { EnrolNodeModal } from './EnrolNodeModal';

function StateBadge({ node }: { node: ScanNode }) {
  if (node.RevokedAt)
    return (
      <Badge color="red" variant="light">
        Revoked
      </Badge>
    );
  return (
    <Badge color={node.State === 'Online' ? 'green' : 'gray'} variant="light">
      {node.State}
    </Badge>
  );
}

export default function ScanNodesPage() {
  useDocumentTitle('Scan nodes · Rampart');
  const nodes = useScanNodes();
  const revoke = useRevokeScanNode();
  const [enrolling, setEnrolling] = useState(false);
  const [target, setTarget] = useState<ScanNode | null>(null);
  const [confirming, setConfirming] = useState(false);

  const askRevoke = (node: ScanNode) => {
    revoke.reset();
    setTarget(node);
    setConfirming(true);
  };
  const confirmRevoke = () => {
    if (!target) return;
    revoke.mutate(target.Id, {
      onSuccess: () => {
        setConfirming(false);
        notifications.show({ color: 'green', message: `Scan node “${target.Name}” revoked.` });
      },
    });
  };

  const rows = nodes.data?.Items ?? [];

  return (
    <Stack gap="lg">
      <PageHeader
        title="Scan nodes"
        action={
          <Button leftSection={<IconPlus size={16} />} onClick={() => setEnrolling(true)}>
            Enrol a node
          </Button>
        }
      >
        The agents that run your scans. The local node runs inside the server; enrol others where the networks
        to scan are. A node is online while it heartbeats.
      </PageHeader>

      {nodes.isPending ? (
        <TableSkeleton rows={3} />
      ) : nodes.isError && !nodes.data ? (
        <QueryError error={nodes.error} onRetry={() => nodes.refetch()} />
      ) : rows.length === 0 ? (
        <Text c="dimmed">
          No scan node yet: enrol one, or turn the local node on (RAMPART_LOCAL_SCAN_NODE).
        </Text>
      ) : (
        <Table.ScrollContainer minWidth={760}>
          <Table striped highlightOnHover verticalSpacing="xs" fz="sm" data-testid="scan-nodes">
            <TableHead
              columns={[
                'Name',
                'State',
                'Kinds',
                'Version',
                'Capacity',
                'Last heartbeat',
                { hidden: 'Actions' },
              ]}
            />
            <Table.Tbody>
              {rows.map((node) => (
                <Table.Tr key={node.Id} data-node-id={node.Id}>
                  <Table.Td>
                    {node.Name}
                    {node.Local && (
                      <Text component="span" size="xs" c="dimmed" ml={6}>
                        (inside the server)
                      </Text>
                    )}
                  </Table.Td>
                  <Table.Td>
                    <StateBadge node={node} />
                  </Table.Td>
                  <Table.Td>{node.Kinds.join(', ') || '—'}</Table.Td>
                  <Table.Td>{node.Version || '—'}</Table.Td>
                  <Table.Td>{node.Capacity}</Table.Td>
                  <Table.Td>
                    <DateTime value={node.LastHeartbeatAt} />
                  </Table.Td>
                  <Table.Td ta="right">
                    {!node.Local && !node.RevokedAt && (
                      <Tooltip label="Revoke">
                        <ActionIcon
                          variant="subtle"
                          color="red"
                          aria-label={`Revoke ${node.Name}`}
                          onClick={() => askRevoke(node)}
                        >
                          <IconTrash size={18} />
                        </ActionIcon>
                      </Tooltip>
                    )}
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}

      <EnrolNodeModal opened={enrolling} onClose={() => setEnrolling(false)} />
      <ConfirmModal
        opened={confirming}
        onClose={() => setConfirming(false)}
        title="Revoke scan node"
        confirmLabel="Revoke"
        onConfirm={confirmRevoke}
        mutation={revoke}
      >
        <Text size="sm">
          “{target?.Name}” can no longer call the server; the scans it runs are queued again for another node.
          To use the machine again, enrol it with a new token.
        </Text>
      </ConfirmModal>
    </Stack>
  );
}
