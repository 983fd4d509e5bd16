import {
  Button,
  Checkbox,
  Fieldset,
  Group,
  Modal,
  NumberInput,
  Select,
  SimpleGrid,
  Stack,
  Switch,
  Textarea,
  TextInput,
} from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { type FormEvent, useState } from 'react';
import { discoveryScans } from '../../api/discovery';
import { type ScanGroup, useSaveScanGroup } from '../../api/scangroups';
import { useNodeOptions, useTemplateOptions } from '../../api/scans';
import { NameInput } from '../../components/NameInput';
import { ErrorAlert } from '../../components/QueryError';
import { IconPlus, IconTrash } from '../../icons';
import { fieldErrors, ScheduleFields, type ScheduleState, useScheduleState } from '../scans/ScheduleFields';
import {
  type GroupForm,
  type MonitorForm,
  monitorsOf,
  newMonitor,
  placeMonitorErrors,
  type SettingsForm,
  settingsOf,
  toBody,
} from './groupForm';

export function ScanGroupFormModal({
  opened,
  onClose,
  group,
  onSaved,
}: {
  opened: boolean;
  onClose: () => void;
  group?: ScanGroup;
  onSaved?: (group: ScanGroup) => void;
}) {
  return (
    <Modal opened={opened} onClose={onClose} title={group ? 'Edit scan group' : 'New scan group'} size="xl">
      {opened && (
        <ScanGroupForm
          group={group}
          onDone={(saved) => {
            onSaved?.(saved);
            onClose();
          }}
        />
      )}
    </Modal>
  );
}

type Field = 'name' | 'description' | 'system' | 'web' | 'monitors';

function ScanGroupForm({ group, onDone }: { group?: ScanGroup; onDone: (group: ScanGroup) => void }) {
  const save = useSaveScanGroup(group?.Id);
  const [name, setName] = useState(group?.ScanGroupName ?? '');
  const [description, setDescription] = useState(group?.ScanDescription ?? '');
  const [system, setSystem] = useState<SettingsForm>(settingsOf(group, 'System'));
  const [web, setWeb] = useState<SettingsForm>(settingsOf(group, 'Web'));
  const systemSchedule = useScheduleState(system.schedule);
  const webSchedule = useScheduleState(web.schedule);
  const [monitors, setMonitors] = useState<MonitorForm[]>(monitorsOf(group));
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({});
  const [formError, setFormError] = useState<unknown>(null);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setFormError(null);
    const found: Partial<Record<Field, string>> = {};
    if (!name.trim()) found.name = 'Give the group a name.';
    if (systemSchedule.missingStart) found.system = 'Pick when the system scans’ schedule starts.';
    if (webSchedule.missingStart) found.web = 'Pick when the web scans’ schedule starts.';
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    const form: GroupForm = {
      name: name.trim(),
      description: description.trim(),
      system: { ...system, schedule: systemSchedule.option() },
      web: { ...web, schedule: webSchedule.option() },
      monitors,
    };
    save.mutate(toBody(form), {
      onSuccess: (saved) => {
        notifications.show({ color: 'green', message: `Scan group “${saved.ScanGroupName}” saved.` });
        onDone(saved);
      },
      onError: (error) => {
        const placed = placeMonitorErrors(monitors, error);
        setMonitors(placed.monitors);
        const byField = fieldErrors(error, FIELD_POINTERS);
        setErrors(placed.placed ? { ...byField, monitors: undefined } : (byField ?? {}));
        if (!byField && !placed.placed) setFormError(error);
      },
    });
  };

  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="md">
        <ErrorAlert error={formError} />
        <NameInput value={name} onChange={setName} error={errors.name} />
        <Textarea
          label="Description"
          autosize
          minRows={1}
          maxLength={2000}
          value={description}
          onChange={(e) => setDescription(e.currentTarget.value)}
          error={errors.description}
        />
        <SettingsFields
          kind="System"
          legend="System scans"
          value={system}
          onChange={setSystem}
          schedule={systemSchedule}
          error={errors.system}
        />
        <SettingsFields
          kind="Web"
          legend="Web scans"
          value={web}
          onChange={setWeb}
          schedule={webSchedule}
          error={errors.web}
        />
        <MonitorsFields monitors={monitors} onChange={setMonitors} error={errors.monitors} />
        <Group justify="flex-end">
          <Button type="submit" loading={save.isPending}>
            {group ? 'Save' : 'Create group'}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

function SettingsFields({
  kind,
  legend,
  value,
  onChange,
  schedule,
  error,
}: {
  kind: 'System' | 'Web';
  legend: string;
  value: SettingsForm;
  onChange: (value: SettingsForm) => void;
  schedule: ScheduleState;
  error: string | undefined;
}) {
  const templates = useTemplateOptions(kind);
  const nodes = useNodeOptions(kind);
  const what = kind === 'System' ? 'system' : 'web';
  return (
    <Fieldset legend={legend} aria-label={legend}>
      <Stack gap="sm">
        <Switch
          label={`Make ${what} scans for this group`}
          checked={value.enabled}
          onChange={(e) => onChange({ ...value, enabled: e.currentTarget.checked })}
        />
        <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="sm">
          <NumberInput
            label={`Most ${what} scans`}
            min={0}
            allowDecimal={false}
            value={value.max}
            onChange={(n) => onChange({ ...value, max: typeof n === 'number' ? n : 0 })}
            error={error}
          />
          <Select
            label="Template"
            data={templates.data ?? []}
            value={value.templateId}
            onChange={(templateId) => onChange({ ...value, templateId })}
            placeholder="The built-in template"
            clearable
          />
          <Select
            label="Scan node"
            data={nodes.data ?? []}
            value={value.nodeId}
            onChange={(nodeId) => onChange({ ...value, nodeId })}
            placeholder="Any node"
            clearable
          />
        </SimpleGrid>
        <ScheduleFields state={schedule} label={`${legend} schedule`} />
      </Stack>
    </Fieldset>
  );
}

function MonitorsFields({
  monitors,
  onChange,
  error,
}: {
  monitors: MonitorForm[];
  onChange: (monitors: MonitorForm[]) => void;
  error: string | undefined;
}) {
  const scans = discoveryScans.useList();
  const options = (scans.data?.pages.flatMap((p) => p.Items) ?? []).map((s) => ({
    value: s.Id,
    label: s.Name,
  }));
  const set = (i: number, next: MonitorForm) => onChange(monitors.map((m, j) => (j === i ? next : m)));
  return (
    <Fieldset legend="Asset monitoring" aria-label="Asset monitoring">
      <Stack gap="sm">
        {error && <ErrorAlert error={new Error(error)} />}
        {monitors.map((m, i) => (
          <MonitorFields
            key={m.id ?? `new-${i}`}
            index={i}
            monitor={m}
            options={options}
            onChange={(next) => set(i, next)}
            onRemove={() => onChange(monitors.filter((_, j) => j !== i))}
          />
        ))}
        <Group>
          <Button
            variant="light"
            size="xs"
            leftSection={<IconPlus size={14} />}
            onClick={() => onChange([...monitors, newMonitor()])}
          >
            Add monitoring
          </Button>
        </Group>
      </Stack>
    </Fieldset>
  );
}

function MonitorFields({
  index,
  monitor,
  options,
  onChange,
  onRemove,
}: {
  index: number;
  monitor: MonitorForm;
  options: { value: string; label: string }[];
  onChange: (monitor: MonitorForm) => void;
  onRemove: () => void;
}) {
  const flag = (key: keyof MonitorForm, label: string) => (
    <Checkbox
      label={label}
      checked={monitor[key] === true}
      onChange={(e) => onChange({ ...monitor, [key]: e.currentTarget.checked })}
    />
  );
  return (
    <Fieldset
      legend={`Monitoring ${index + 1}`}
      aria-label={`Monitoring ${index + 1}`}
      variant="filled"
      data-testid="monitor"
    >
      <Stack gap="xs">
        <Group align="flex-end" grow>
          <Select
            label="Discovery scan"
            data={options}
            value={monitor.discoveryScanId}
            onChange={(discoveryScanId) => onChange({ ...monitor, discoveryScanId })}
            error={monitor.error}
            searchable
          />
          {flag('isActive', 'Active')}
        </Group>
        <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="xs">
          <Stack gap={4}>
            {flag('trackSystem', 'Track hosts with system scans')}
            {flag('removeSystem', 'Remove the system scan when the host is undiscovered')}
            {flag('runSystemAfterAdd', 'Run a system scan immediately after it is added')}
            {flag('runSystemOnNewServices', 'Run the system scan when new services appear')}
          </Stack>
          <Stack gap={4}>
            {flag('trackWeb', 'Track web servers with web scans')}
            {flag('removeWeb', 'Remove the web scan when the host is undiscovered')}
            {flag('runWebAfterAdd', 'Run a web scan immediately after it is added')}
            <Group grow>
              <TextInput
                label="HTTP ports"
                size="xs"
                value={monitor.httpPorts}
                onChange={(e) => onChange({ ...monitor, httpPorts: e.currentTarget.value })}
                error={monitor.httpError}
              />
              <TextInput
                label="HTTPS ports"
                size="xs"
                value={monitor.httpsPorts}
                onChange={(e) => onChange({ ...monitor, httpsPorts: e.currentTarget.value })}
                error={monitor.httpsError}
              />
            </Group>
          </Stack>
        </SimpleGrid>
        <Group justify="flex-end">
          <Button
            variant="subtle"
            color="red"
            size="xs"
            leftSection={<IconTrash size={14} />}
            onClick={onRemove}
          >
            Remove monitoring
          </Button>
        </Group>
      </Stack>
    </Fieldset>
  );
}

const FIELD_POINTERS: Record<Field, readonly string[]> = {
  name: ['/ScanGroupName', '/Name'],
  description: ['/ScanDescription', '/Description'],
  system: ['/MaxSystemScans', '/SystemScanTemplateId', '/SystemScanNodeId', '/SystemScanSchedule'],
  web: ['/MaxWebScans', '/WebScanTemplateId', '/WebScanNodeId', '/WebScanSchedule'],
  monitors: ['/AssetMonitoringConfigurations'],
};
