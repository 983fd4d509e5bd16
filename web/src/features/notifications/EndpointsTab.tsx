import {
  ActionIcon,
  Alert,
  Badge,
  Button,
  Group,
  Menu,
  Modal,
  NumberInput,
  Select,
  Stack,
  Table,
  Text,
  TextInput,
  Tooltip,
} from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { type FormEvent, useState } from 'react';
import { ApiError } from '../../api/client';
import {
  type CreatedEndpoint,
  type EndpointKind,
  type NotificationEndpoint,
  useCreateEndpoint,
  useDeleteEndpoint,
  useEnableEndpoint,
  useEndpoints,
  useNotificationOptions,
  useRefreshEndpoints,
  useTestEndpoint,
  useUpdateEndpoint,
} from '../../api/notifications';
import { ConfirmModal } from '../../components/ConfirmModal';
import { CopyValue } from '../../components/CopyValue';
import { DoneButton } from '../../components/DoneButton';
import { EmptyState } from '../../components/EmptyState';
import { FormButtons } from '../../components/FormButtons';
import { TableSkeleton } from '../../components/PageSkeleton';
import { ErrorAlert, QueryError } from '../../components/QueryError';
import { TableHead } from '../../components/TableHead';
import {
  IconAlertTriangle,
  IconDots,
  IconHistory,
  IconPlayerPlay,
  IconPlayerStop,
  IconPlus,
  IconSend,
  IconTrash,
} from '../../icons';
import { KIND_LABELS, URL_HINTS } from './labels';

export function EndpointsTab({ onShowDeliveries }: { onShowDeliveries: (endpointId: string) => void }) {
  const endpoints = useEndpoints();
  const [adding, setAdding] = useState(false);
  const [removing, setRemoving] = useState<NotificationEndpoint | null>(null);
  const remove = useDeleteEndpoint();
  const test = useTestEndpoint();
  const enable = useEnableEndpoint();
  const update = useUpdateEndpoint();

  const sendTest = (endpoint: NotificationEndpoint) =>
    test.mutate(endpoint.Id, {
      onSuccess: () =>
        notifications.show({
          color: 'green',
          message: `Test event sent to ${endpoint.Name}: its delivery is in the log.`,
        }),
      onError: (error) => notifications.show({ color: 'red', message: (error as Error).message }),
    });
  const setEnabled = (endpoint: NotificationEndpoint, on: boolean) => {
    const done = {
      onSuccess: () =>
        notifications.show({ color: 'green', message: `${endpoint.Name} ${on ? 'enabled' : 'disabled'}.` }),
      onError: (error: unknown) => notifications.show({ color: 'red', message: (error as Error).message }),
    };
    if (on) enable.mutate(endpoint.Id, done);
    else update.mutate({ id: endpoint.Id, Enabled: false }, done);
  };

  const rows = endpoints.data?.Items ?? [];
  return (
    <Stack gap="md">
      <Group justify="space-between">
        <Text size="sm" c="dimmed">
          Where notifications go. A webhook gets a signing secret when it is created; chat URLs are kept from
          everyone but Admins.
        </Text>
        <Button leftSection={<IconPlus size={16} />} onClick={() => setAdding(true)}>
          Add endpoint
        </Button>
      </Group>
      {endpoints.isPending ? (
        <TableSkeleton rows={3} />
      ) : endpoints.isError ? (
        <QueryError error={endpoints.error} onRetry={() => endpoints.refetch()} />
      ) : rows.length === 0 ? (
        <EmptyState title="No endpoints yet">
          Add a webhook, a Slack or a Microsoft Teams incoming webhook, then a rule that sends events to it.
        </EmptyState>
      ) : (
        <Table.ScrollContainer minWidth={820}>
          <Table striped highlightOnHover verticalSpacing="xs" fz="sm">
            <TableHead
              columns={[
                'Name',
                'Kind',
                'URL',
                'Status',
                { label: 'Per minute', ta: 'right' },
                { hidden: 'Actions' },
              ]}
            />
            <Table.Tbody>
              {rows.map((endpoint) => (
                <Table.Tr key={endpoint.Id}>
                  <Table.Td fw={500}>{endpoint.Name}</Table.Td>
                  <Table.Td>{KIND_LABELS[endpoint.Kind]}</Table.Td>
                  <Table.Td maw={320} style={{ overflowWrap: 'anywhere' }}>
                    <Text size="sm" ff="monospace">
                      {endpoint.Url}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <EndpointStatus endpoint={endpoint} />
                  </Table.Td>
                  <Table.Td ta="right">{endpoint.RatePerMinute}</Table.Td>
                  <Table.Td ta="right">
                    <Menu position="bottom-end" withArrow>
                      <Menu.Target>
                        <ActionIcon variant="subtle" color="gray" aria-label={`Actions for ${endpoint.Name}`}>
                          <IconDots size={18} />
                        </ActionIcon>
                      </Menu.Target>
                      <Menu.Dropdown>
                        <Menu.Item
                          leftSection={<IconSend size={16} />}
                          disabled={!endpoint.Enabled}
                          onClick={() => sendTest(endpoint)}
                        >
                          Send a test event
                        </Menu.Item>
                        <Menu.Item
                          leftSection={<IconHistory size={16} />}
                          onClick={() => onShowDeliveries(endpoint.Id)}
                        >
                          Delivery log
                        </Menu.Item>
                        <Menu.Item
                          leftSection={
                            endpoint.Enabled ? <IconPlayerStop size={16} /> : <IconPlayerPlay size={16} />
                          }
                          onClick={() => setEnabled(endpoint, !endpoint.Enabled)}
                        >
                          {endpoint.Enabled ? 'Disable' : 'Enable'}
                        </Menu.Item>
                        <Menu.Item
                          color="red"
                          leftSection={<IconTrash size={16} />}
                          onClick={() => {
                            remove.reset();
                            setRemoving(endpoint);
                          }}
                        >
                          Delete
                        </Menu.Item>
                      </Menu.Dropdown>
                    </Menu>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      <AddEndpointModal opened={adding} onClose={() => setAdding(false)} />
      <ConfirmModal
        opened={removing !== null}
        onClose={() => setRemoving(null)}
        title="Delete endpoint"
        confirmLabel="Delete endpoint"
        mutation={remove}
        onConfirm={() => removing && remove.mutate(removing.Id, { onSuccess: () => setRemoving(null) })}
      >
        <Text size="sm">
          Delete {removing?.Name} and its delivery log? Rules that send to it must be changed first.
        </Text>
      </ConfirmModal>
    </Stack>
  );
}

function EndpointStatus({ endpoint }: { endpoint: NotificationEndpoint }) {
  if (!endpoint.Enabled)
    return (
      <Stack gap={2}>
        <Badge color="red" variant="light">
          Disabled
        </Badge>
        {endpoint.DisabledReason && (
          <Text size="xs" c="dimmed">
            {endpoint.DisabledReason}
          </Text>
        )}
      </Stack>
    );
  if (endpoint.ConsecutiveFailures > 0)
    return (
      <Tooltip label="The last deliveries failed; they are being retried." withArrow>
        <Badge color="orange" variant="light">
          Failing ({endpoint.ConsecutiveFailures})
        </Badge>
      </Tooltip>
    );
  return (
    <Badge color="green" variant="light">
      Enabled
    </Badge>
  );
}

function AddEndpointModal({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const [created, setCreated] = useState<CreatedEndpoint | null>(null);
  const refresh = useRefreshEndpoints();
  const close = () => {
    setCreated(null);
    onClose();
  };
  return (
    <Modal opened={opened} onClose={close} title="Add endpoint" centered size="lg">
      {created ? (
        <CreatedEndpointView endpoint={created} onDone={close} />
      ) : (
        <AddEndpointForm
          onCancel={close}
          onCreated={(endpoint) => {
            void refresh();
            if (endpoint.Secret) setCreated(endpoint);
            else {
              notifications.show({ color: 'green', message: `Endpoint ${endpoint.Name} added.` });
              close();
            }
          }}
        />
      )}
    </Modal>
  );
}

function AddEndpointForm({
  onCancel,
  onCreated,
}: {
  onCancel: () => void;
  onCreated: (endpoint: CreatedEndpoint) => void;
}) {
  const options = useNotificationOptions();
  const create = useCreateEndpoint();
  const [name, setName] = useState('');
  const [kind, setKind] = useState<EndpointKind>('Webhook');
  const [url, setUrl] = useState('');
  const [rate, setRate] = useState<number | string>(60);
  const [errors, setErrors] = useState<{ name?: string; url?: string; rate?: string }>({});
  const [formError, setFormError] = useState<unknown>(null);
  const kinds = (options.data?.Kinds ?? ['Webhook', 'Slack', 'Teams']) as EndpointKind[];

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const found = {
      name: name.trim() ? undefined : 'Enter a name.',
      url: url.trim() ? undefined : 'Enter the address to send to.',
    };
    setErrors(found);
    setFormError(null);
    if (found.name || found.url) return;
    create.mutate(
      { Name: name.trim(), Kind: kind, Url: url.trim(), RatePerMinute: Number(rate) || 60 },
      {
        onSuccess: onCreated,
        onError: (error) => {
          const byField =
            error instanceof ApiError
              ? {
                  name: error.fieldError('/Name'),
                  url: error.fieldError('/Url'),
                  rate: error.fieldError('/RatePerMinute'),
                }
              : {};
          setErrors(byField);
          if (!Object.values(byField).some(Boolean)) setFormError(error);
        },
      },
    );
  };

  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="md">
        <ErrorAlert error={formError} />
        <TextInput
          label="Name"
          required
          maxLength={100}
          value={name}
          onChange={(e) => setName(e.currentTarget.value)}
          error={errors.name}
          data-autofocus
        />
        <Select
          label="Kind"
          required
          data={kinds.map((k) => ({ value: k, label: KIND_LABELS[k] }))}
          value={kind}
          onChange={(value) => value && setKind(value as EndpointKind)}
          allowDeselect={false}
          comboboxProps={{ withinPortal: true }}
        />
        <TextInput
          label="URL"
          required
          description={URL_HINTS[kind]}
          placeholder={kind === 'Email' ? 'mailto:' : 'https://'}
          spellCheck={false}
          autoComplete="off"
          value={url}
          onChange={(e) => setUrl(e.currentTarget.value)}
          error={errors.url}
        />
        <NumberInput
          label="Deliveries per minute"
          description="More wait their turn; none is dropped."
          min={1}
          max={6000}
          value={rate}
          onChange={setRate}
          error={errors.rate}
        />
        <FormButtons onCancel={onCancel} pending={create.isPending} submit="Add endpoint" />
      </Stack>
    </form>
  );
}

function CreatedEndpointView({ endpoint, onDone }: { endpoint: CreatedEndpoint; onDone: () => void }) {
  return (
    <Stack gap="md">
      <Alert color="yellow" variant="light" icon={<IconAlertTriangle />}>
        Store the signing secret now: it is shown only once. Your receiver checks each request’s
        Rampart-Signature header with it (see docs/notifications.md).
      </Alert>
      <Text size="sm">Webhook “{endpoint.Name}” added.</Text>
      <CopyValue
        label="Signing secret"
        value={endpoint.Secret ?? ''}
        copyLabel="Copy signing secret"
        testId="new-signing-secret"
      />
      <DoneButton onDone={onDone} />
    </Stack>
  );
}
