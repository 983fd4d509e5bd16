import { Badge, Button, Collapse, Group, Select, Stack, Table, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { Fragment, useState } from 'react';
import {
  type Delivery,
  type DeliveryState,
  useDeliveries,
  useEndpoints,
  useRedeliver,
} from '../../api/notifications';
import { DateTime } from '../../components/DateTime';
import { EmptyNote, EmptyState } from '../../components/EmptyState';
import { LoadMore } from '../../components/LoadMore';
import { TableSkeleton } from '../../components/PageSkeleton';
import { QueryError } from '../../components/QueryError';
import { TableHead } from '../../components/TableHead';
import { IconChevronDown, IconRefresh } from '../../icons';
import { DELIVERY_STATE_COLORS, DELIVERY_STATES } from './labels';

/** An endpoint's delivery log: each delivery's state and attempts, with Redeliver. */
export function DeliveriesTab({
  endpointId,
  onEndpoint,
}: {
  endpointId: string | null;
  onEndpoint: (id: string | null) => void;
}) {
  const endpoints = useEndpoints();
  const list = endpoints.data?.Items ?? [];
  // The first endpoint until one is chosen.
  const chosen = endpointId && list.some((e) => e.Id === endpointId) ? endpointId : (list[0]?.Id ?? null);
  const [state, setState] = useState<DeliveryState | null>(null);

  if (endpoints.isPending) return <TableSkeleton rows={4} />;
  if (endpoints.isError) return <QueryError error={endpoints.error} onRetry={() => endpoints.refetch()} />;
  if (list.length === 0)
    return (
      <EmptyState title="No endpoints yet">
        Deliveries appear here once an endpoint receives events.
      </EmptyState>
    );

  return (
    <Stack gap="md">
      <Group align="flex-end">
        <Select
          label="Endpoint"
          data={list.map((e) => ({ value: e.Id, label: e.Name }))}
          value={chosen}
          onChange={(value) => onEndpoint(value)}
          allowDeselect={false}
          w={280}
        />
        <Select
          label="State"
          placeholder="Any"
          clearable
          data={DELIVERY_STATES.map((s) => ({ value: s, label: s }))}
          value={state}
          onChange={(value) => setState(value as DeliveryState | null)}
          w={180}
        />
      </Group>
      {chosen && <DeliveryLog endpointId={chosen} state={state} />}
    </Stack>
  );
}

function DeliveryLog({ endpointId, state }: { endpointId: string; state: DeliveryState | null }) {
  const deliveries = useDeliveries(endpointId, state);
  const redeliver = useRedeliver();
  const [open, setOpen] = useState<string | null>(null);

  if (deliveries.isPending) return <TableSkeleton rows={5} />;
  if (deliveries.isError && !deliveries.data)
    return <QueryError error={deliveries.error} onRetry={() => deliveries.refetch()} />;
  const rows = deliveries.data?.pages.flatMap((p) => p.Items) ?? [];
  const total = deliveries.data?.pages.at(-1)?.TotalCount;
  if (rows.length === 0)
    return <EmptyNote>No deliveries{state ? ` in state ${state}` : ''} to this endpoint yet.</EmptyNote>;

  const again = (delivery: Delivery) =>
    redeliver.mutate(delivery.Id, {
      onSuccess: () =>
        notifications.show({ color: 'green', message: `${delivery.EventType} is being sent again.` }),
      onError: (error) => notifications.show({ color: 'red', message: (error as Error).message }),
    });

  return (
    <>
      <Table.ScrollContainer minWidth={900}>
        <Table highlightOnHover verticalSpacing="xs" fz="sm">
          <TableHead
            columns={[
              'Event',
              'Created',
              'State',
              { label: 'Attempts', ta: 'right' },
              { label: 'Last status', ta: 'right' },
              { label: 'Time', ta: 'right' },
              'Last error',
              { hidden: 'Actions' },
            ]}
          />
          <Table.Tbody>
            {rows.map((delivery) => (
              <Fragment key={delivery.Id}>
                <Table.Tr>
                  <Table.Td>
                    <Text size="sm" ff="monospace">
                      {delivery.EventType}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <DateTime value={delivery.CreatedAt} />
                  </Table.Td>
                  <Table.Td>
                    <Badge color={DELIVERY_STATE_COLORS[delivery.State]} variant="light">
                      {delivery.State}
                    </Badge>
                    {delivery.State === 'Failed' && delivery.NextAttemptAt && (
                      <Text size="xs" c="dimmed">
                        retry <DateTime value={delivery.NextAttemptAt} />
                      </Text>
                    )}
                  </Table.Td>
                  <Table.Td ta="right">{delivery.Attempts}</Table.Td>
                  <Table.Td ta="right">{delivery.LastStatusCode ?? '—'}</Table.Td>
                  <Table.Td ta="right">
                    {delivery.LastDurationMs === null ? '—' : `${delivery.LastDurationMs} ms`}
                  </Table.Td>
                  <Table.Td maw={300} style={{ overflowWrap: 'anywhere' }}>
                    {delivery.LastError ?? ''}
                  </Table.Td>
                  <Table.Td>
                    <Group gap={4} justify="flex-end" wrap="nowrap">
                      {delivery.AttemptLog.length > 0 && (
                        <Button
                          size="compact-sm"
                          variant="subtle"
                          color="gray"
                          rightSection={<IconChevronDown size={14} />}
                          aria-expanded={open === delivery.Id}
                          onClick={() => setOpen(open === delivery.Id ? null : delivery.Id)}
                        >
                          Attempts
                        </Button>
                      )}
                      <Button
                        size="compact-sm"
                        variant="default"
                        leftSection={<IconRefresh size={14} />}
                        disabled={delivery.State === 'Pending' || delivery.State === 'Delivering'}
                        onClick={() => again(delivery)}
                        aria-label={`Redeliver ${delivery.EventType} of ${delivery.CreatedAt}`}
                      >
                        Redeliver
                      </Button>
                    </Group>
                  </Table.Td>
                </Table.Tr>
                {open === delivery.Id && (
                  <Table.Tr>
                    <Table.Td colSpan={8} bg="var(--mantine-color-default-hover)">
                      <Collapse in>
                        <AttemptLog delivery={delivery} />
                      </Collapse>
                    </Table.Td>
                  </Table.Tr>
                )}
              </Fragment>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      <LoadMore query={deliveries} shown={rows.length} total={total} what="deliveries" />
    </>
  );
}

function AttemptLog({ delivery }: { delivery: Delivery }) {
  return (
    <Table
      fz="xs"
      verticalSpacing={4}
      withRowBorders={false}
      aria-label={`Attempts of ${delivery.EventType}`}
    >
      <TableHead
        columns={['Attempt', 'At', { label: 'Status', ta: 'right' }, { label: 'Time', ta: 'right' }, 'Error']}
      />
      <Table.Tbody>
        {delivery.AttemptLog.map((a) => (
          <Table.Tr key={`${a.Attempt}-${a.At}`}>
            <Table.Td>{a.Attempt}</Table.Td>
            <Table.Td>
              <DateTime value={a.At} />
            </Table.Td>
            <Table.Td ta="right">{a.StatusCode ?? '—'}</Table.Td>
            <Table.Td ta="right">{a.DurationMs} ms</Table.Td>
            <Table.Td style={{ overflowWrap: 'anywhere' }}>{a.Error ?? ''}</Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}
