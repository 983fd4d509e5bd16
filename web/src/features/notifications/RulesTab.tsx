import {
  ActionIcon,
  Anchor,
  Badge,
  Button,
  Checkbox,
  Group,
  Modal,
  MultiSelect,
  NumberInput,
  Select,
  Stack,
  Switch,
  Table,
  Text,
  TextInput,
} from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { type FormEvent, useState } from 'react';
import { Link } from 'react-router';
import { ApiError } from '../../api/client';
import {
  type NewRule,
  type NotificationRule,
  useCreateRule,
  useDeleteRule,
  useEndpoints,
  useNotificationOptions,
  useRules,
  useUpdateRule,
} from '../../api/notifications';
import { useScanGroups } from '../../api/scangroups';
import { useSignedInSession } from '../../api/session';
import { ConfirmModal } from '../../components/ConfirmModal';
import { EmptyState } from '../../components/EmptyState';
import { FormButtons } from '../../components/FormButtons';
import { TableSkeleton } from '../../components/PageSkeleton';
import { ErrorAlert, QueryError } from '../../components/QueryError';
import { TableHead } from '../../components/TableHead';
import { IconPencil, IconPlus, IconTrash } from '../../icons';

type Severity = NonNullable<NotificationRule['MinSeverity']>;
const SEVERITIES: readonly Severity[] = ['Critical', 'High', 'Medium', 'Low', 'Info'];

/** The filters of a rule, as words: "High or worse · KEV only · tag pci". */
function filterWords(rule: NotificationRule, groupName: (id: string) => string): string {
  const words: string[] = [];
  if (rule.MinSeverity)
    words.push(rule.MinSeverity === 'Critical' ? 'Critical only' : `${rule.MinSeverity} or worse`);
  if (rule.KevOnly) words.push('KEV only');
  if (rule.RiskAbove !== null) words.push(`risk above ${rule.RiskAbove}`);
  if (rule.Tag) words.push(`tag ${rule.Tag}`);
  if (rule.ScanGroupId) words.push(`scan group ${groupName(rule.ScanGroupId)}`);
  if (rule.AssetId) words.push(`asset ${rule.AssetId.slice(0, 8)}…`);
  if (rule.ScanId)
    words.push(rule.ManagedBy?.Id === rule.ScanId ? `scan ${rule.ManagedBy.Name}` : 'one scan');
  return words.length > 0 ? words.join(' · ') : 'Every event of these types';
}

/**
 * A rule a discovery scan or scan group owns (its MessageNotification): it changes with its owner,
 * so the page links there instead of offering to edit it.
 */
function ManagedBy({ owner }: { owner: NonNullable<NotificationRule['ManagedBy']> }) {
  const scan = owner.Kind === 'DiscoveryScan';
  const to = `/${scan ? 'discovery' : 'scan-groups'}/${encodeURIComponent(owner.Id)}`;
  return (
    <Text size="xs" c="dimmed" fw={400}>
      Managed by the {scan ? 'discovery scan' : 'scan group'}{' '}
      <Anchor component={Link} to={to} size="xs">
        {owner.Name}
      </Anchor>
    </Text>
  );
}

export function RulesTab() {
  const admin = useSignedInSession().User.Role === 'Admin';
  const rules = useRules();
  const endpoints = useEndpoints();
  const groups = useScanGroups();
  const [editing, setEditing] = useState<NotificationRule | 'new' | null>(null);
  const [removing, setRemoving] = useState<NotificationRule | null>(null);
  const remove = useDeleteRule();
  const endpointName = (id: string) => endpoints.data?.Items.find((e) => e.Id === id)?.Name ?? 'an endpoint';
  const groupList = groups.data?.pages.flatMap((p) => p.Items) ?? [];
  const groupName = (id: string) => groupList.find((g) => g.Id === id)?.ScanGroupName ?? id.slice(0, 8);
  const rows = rules.data?.Items ?? [];

  return (
    <Stack gap="md">
      <Group justify="space-between">
        <Text size="sm" c="dimmed">
          An event goes to a rule’s endpoints when its type is one of the rule’s and it passes every filter.
        </Text>
        {admin && (
          <Button leftSection={<IconPlus size={16} />} onClick={() => setEditing('new')}>
            Add rule
          </Button>
        )}
      </Group>
      {rules.isPending ? (
        <TableSkeleton rows={3} />
      ) : rules.isError ? (
        <QueryError error={rules.error} onRetry={() => rules.refetch()} />
      ) : rows.length === 0 ? (
        <EmptyState title="No rules yet">
          Add an endpoint first, then a rule: for example, Critical and High findings to your SIEM’s webhook.
        </EmptyState>
      ) : (
        <Table.ScrollContainer minWidth={820}>
          <Table striped highlightOnHover verticalSpacing="xs" fz="sm">
            <TableHead
              columns={['Name', 'Events', 'Filters', 'Sends to', 'Status', admin && { hidden: 'Actions' }]}
            />
            <Table.Tbody>
              {rows.map((rule) => (
                <Table.Tr key={rule.Id}>
                  <Table.Td fw={500}>
                    {rule.Name}
                    {rule.ManagedBy && <ManagedBy owner={rule.ManagedBy} />}
                  </Table.Td>
                  <Table.Td>
                    <Group gap={4}>
                      {rule.EventTypes.map((type) => (
                        <Badge key={type} variant="outline" color="gray" tt="none">
                          {type}
                        </Badge>
                      ))}
                    </Group>
                  </Table.Td>
                  <Table.Td>{filterWords(rule, groupName)}</Table.Td>
                  <Table.Td>{rule.EndpointIds.map(endpointName).join(', ')}</Table.Td>
                  <Table.Td>
                    <Badge color={rule.Enabled ? 'green' : 'gray'} variant="light">
                      {rule.Enabled ? 'On' : 'Off'}
                    </Badge>
                  </Table.Td>
                  {admin && rule.ManagedBy ? (
                    <Table.Td ta="right">
                      <Text size="xs" c="dimmed">
                        Change it on its {rule.ManagedBy.Kind === 'DiscoveryScan' ? 'scan' : 'group'}
                      </Text>
                    </Table.Td>
                  ) : (
                    admin && (
                      <Table.Td ta="right">
                        <Group gap={4} justify="flex-end" wrap="nowrap">
                          <ActionIcon
                            variant="subtle"
                            color="gray"
                            aria-label={`Edit ${rule.Name}`}
                            onClick={() => setEditing(rule)}
                          >
                            <IconPencil size={18} />
                          </ActionIcon>
                          <ActionIcon
                            variant="subtle"
                            color="red"
                            aria-label={`Delete ${rule.Name}`}
                            onClick={() => {
                              remove.reset();
                              setRemoving(rule);
                            }}
                          >
                            <IconTrash size={18} />
                          </ActionIcon>
                        </Group>
                      </Table.Td>
                    )
                  )}
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      <Modal
        opened={editing !== null}
        onClose={() => setEditing(null)}
        title={editing === 'new' ? 'Add rule' : 'Edit rule'}
        centered
        size="lg"
      >
        {editing !== null && (
          <RuleForm rule={editing === 'new' ? null : editing} onDone={() => setEditing(null)} />
        )}
      </Modal>
      <ConfirmModal
        opened={removing !== null}
        onClose={() => setRemoving(null)}
        title="Delete rule"
        confirmLabel="Delete rule"
        mutation={remove}
        onConfirm={() => removing && remove.mutate(removing.Id, { onSuccess: () => setRemoving(null) })}
      >
        <Text size="sm">Delete the rule {removing?.Name}? Its endpoints stay.</Text>
      </ConfirmModal>
    </Stack>
  );
}

interface FieldErrors {
  name?: string;
  eventTypes?: string;
  endpointIds?: string;
  riskAbove?: string;
  tag?: string;
  assetId?: string;
}

function RuleForm({ rule, onDone }: { rule: NotificationRule | null; onDone: () => void }) {
  const options = useNotificationOptions();
  const endpoints = useEndpoints();
  const groups = useScanGroups();
  const create = useCreateRule();
  const update = useUpdateRule();
  const [name, setName] = useState(rule?.Name ?? '');
  const [eventTypes, setEventTypes] = useState<string[]>(rule?.EventTypes ?? []);
  const [endpointIds, setEndpointIds] = useState<string[]>(rule?.EndpointIds ?? []);
  const [minSeverity, setMinSeverity] = useState<Severity | null>(rule?.MinSeverity ?? null);
  const [kevOnly, setKevOnly] = useState(rule?.KevOnly ?? false);
  const [riskAbove, setRiskAbove] = useState<number | string>(rule?.RiskAbove ?? '');
  const [tag, setTag] = useState(rule?.Tag ?? '');
  const [scanGroupId, setScanGroupId] = useState<string | null>(rule?.ScanGroupId ?? null);
  const [assetId, setAssetId] = useState(rule?.AssetId ?? '');
  const [enabled, setEnabled] = useState(rule?.Enabled ?? true);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [formError, setFormError] = useState<unknown>(null);
  const pending = create.isPending || update.isPending;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const found: FieldErrors = {
      name: name.trim() ? undefined : 'Enter a name.',
      eventTypes: eventTypes.length > 0 ? undefined : 'Choose at least one event type.',
      endpointIds: endpointIds.length > 0 ? undefined : 'Choose at least one endpoint.',
    };
    setErrors(found);
    setFormError(null);
    if (Object.values(found).some(Boolean)) return;
    const body: NewRule = {
      Name: name.trim(),
      EventTypes: eventTypes,
      EndpointIds: endpointIds,
      MinSeverity: minSeverity,
      KevOnly: kevOnly,
      RiskAbove: riskAbove === '' ? null : Number(riskAbove),
      Tag: tag.trim() || null,
      ScanGroupId: scanGroupId,
      AssetId: assetId.trim() || null,
      Enabled: enabled,
    };
    const handlers = {
      onSuccess: () => {
        notifications.show({ color: 'green', message: `Rule ${body.Name} saved.` });
        onDone();
      },
      onError: (error: unknown) => {
        const byField: FieldErrors = {};
        if (error instanceof ApiError) {
          const under = (prefix: string) =>
            error.problem.errors?.find((e) => e.path.toLowerCase().startsWith(prefix.toLowerCase()))?.message;
          byField.name = under('/Name');
          byField.eventTypes = under('/EventTypes');
          byField.endpointIds = under('/EndpointIds');
          byField.riskAbove = under('/RiskAbove');
          byField.tag = under('/Tag');
          byField.assetId = under('/AssetId');
        }
        setErrors(byField);
        if (!Object.values(byField).some(Boolean)) setFormError(error);
      },
    };
    if (rule) update.mutate({ id: rule.Id, ...body }, handlers);
    else create.mutate(body, handlers);
  };

  const typeOptions = (options.data?.EventTypes ?? []).map((t) => ({ value: t.Name, label: t.Name }));
  const endpointOptions = (endpoints.data?.Items ?? []).map((e) => ({
    value: e.Id,
    label: e.Enabled ? e.Name : `${e.Name} (disabled)`,
  }));
  const groupOptions = (groups.data?.pages.flatMap((p) => p.Items) ?? []).map((g) => ({
    value: g.Id,
    label: g.ScanGroupName,
  }));

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
        <MultiSelect
          label="Events"
          required
          searchable
          placeholder="finding.created, scan.completed, …"
          data={typeOptions}
          value={eventTypes}
          onChange={setEventTypes}
          error={errors.eventTypes}
          comboboxProps={{ withinPortal: true }}
        />
        <MultiSelect
          label="Send to"
          required
          searchable
          data={endpointOptions}
          value={endpointIds}
          onChange={setEndpointIds}
          error={errors.endpointIds}
          nothingFoundMessage="Add an endpoint first"
          comboboxProps={{ withinPortal: true }}
        />
        <Text size="sm" fw={500} mb={-8}>
          Filters
        </Text>
        <Text size="xs" c="dimmed" mt={-8}>
          Optional. An event that does not carry what a filter asks about (a severity, for a scan event) does
          not pass it.
        </Text>
        <Group grow align="flex-start">
          <Select
            label="Minimum severity"
            placeholder="Any"
            clearable
            data={SEVERITIES.map((s) => ({
              value: s,
              label: s === 'Critical' ? 'Critical' : `${s} or worse`,
            }))}
            value={minSeverity}
            onChange={(value) => setMinSeverity(value as Severity | null)}
            comboboxProps={{ withinPortal: true }}
          />
          <NumberInput
            label="Risk above"
            placeholder="Any"
            min={0}
            max={100}
            decimalScale={1}
            value={riskAbove}
            onChange={setRiskAbove}
            error={errors.riskAbove}
          />
        </Group>
        <Group grow align="flex-start">
          <TextInput
            label="Asset tag"
            placeholder="Any"
            maxLength={100}
            value={tag}
            onChange={(e) => setTag(e.currentTarget.value)}
            error={errors.tag}
          />
          <Select
            label="Scan group"
            placeholder="Any"
            clearable
            data={groupOptions}
            value={scanGroupId}
            onChange={setScanGroupId}
            comboboxProps={{ withinPortal: true }}
          />
        </Group>
        <TextInput
          label="Asset id"
          placeholder="Any"
          description="Only events about this asset (its id, from the asset’s page address)."
          spellCheck={false}
          value={assetId}
          onChange={(e) => setAssetId(e.currentTarget.value)}
          error={errors.assetId}
        />
        <Checkbox
          label="Only findings of known exploited vulnerabilities (CISA KEV)"
          checked={kevOnly}
          onChange={(e) => setKevOnly(e.currentTarget.checked)}
        />
        <Switch label="Rule is on" checked={enabled} onChange={(e) => setEnabled(e.currentTarget.checked)} />
        <FormButtons onCancel={onDone} pending={pending} submit={rule ? 'Save rule' : 'Add rule'} />
      </Stack>
    </form>
  );
}
