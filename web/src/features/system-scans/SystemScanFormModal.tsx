import { Anchor, Button, Group, Modal, Select, Stack, Textarea, TextInput } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { type FormEvent, useState } from 'react';
import { Link } from 'react-router';
import { parseTargetLines, splitLines } from '../../api/discovery';
import { useNodeOptions, useTemplateOptions } from '../../api/scans';
import { type SystemScan, systemScans } from '../../api/systemscans';
import { ErrorAlert } from '../../components/QueryError';
import { TargetCheck, useTargetCheck } from '../discovery/TargetCheck';
import { fieldErrors, ScheduleFields, useScheduleState } from '../scans/ScheduleFields';

/** The scan's targets as text: one per line in the form, comma separated in a list. */
export function targetsText(scan: SystemScan | undefined, separator = '\n'): string {
  return (scan?.ScanTargets ?? [])
    .map((t) => (t.Name && separator === '\n' ? `${t.Range} ${t.Name}` : t.Range))
    .join(separator);
}

export function SystemScanFormModal({
  opened,
  onClose,
  scan,
  onSaved,
}: {
  opened: boolean;
  onClose: () => void;
  scan?: SystemScan;
  onSaved?: (scan: SystemScan) => void;
}) {
  return (
    <Modal opened={opened} onClose={onClose} title={scan ? 'Edit system scan' : 'New system scan'} size="lg">
      {opened && (
        <SystemScanForm
          scan={scan}
          onDone={(saved) => {
            onSaved?.(saved);
            onClose();
          }}
        />
      )}
    </Modal>
  );
}

type Field = 'name' | 'targets' | 'exclusions' | 'template' | 'node' | 'schedule';
const FIELDS: Record<Field, readonly string[]> = {
  name: ['/Name'],
  targets: ['/ScanTargets'],
  exclusions: ['/Exclusions'],
  template: ['/TemplateId'],
  node: ['/ScanNodeId'],
  schedule: ['/Schedule'],
};

function SystemScanForm({ scan, onDone }: { scan?: SystemScan; onDone: (scan: SystemScan) => void }) {
  const save = systemScans.useSave(scan?.Id);
  const templates = useTemplateOptions('System');
  const nodes = useNodeOptions('System');
  const [name, setName] = useState(scan?.Name ?? '');
  const [targets, setTargets] = useState(targetsText(scan));
  const [exclusions, setExclusions] = useState((scan?.Exclusions ?? []).join('\n'));
  const [templateId, setTemplateId] = useState<string | null>(scan?.TemplateId ?? null);
  const [nodeId, setNodeId] = useState<string | null>(scan?.ScanNodeId ?? null);
  const schedule = useScheduleState(scan?.Schedule);
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({});
  const [formError, setFormError] = useState<unknown>(null);

  const parsedTargets = parseTargetLines(targets);
  const parsedExclusions = splitLines(exclusions);
  const check = useTargetCheck(parsedTargets, parsedExclusions);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setFormError(null);
    const found: Partial<Record<Field, string>> = {};
    if (!name.trim()) found.name = 'Give the scan a name.';
    if (parsedTargets.length === 0) found.targets = 'Enter at least one target, one per line.';
    if (schedule.missingStart) found.schedule = 'Pick when the schedule starts.';
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    save.mutate(
      {
        Name: name.trim(),
        ScanTargets: parsedTargets,
        Exclusions: parsedExclusions,
        ...(templateId ? { TemplateId: templateId } : {}),
        ScanNodeId: nodeId,
        Schedule: schedule.option(),
      },
      {
        onSuccess: (saved) => {
          notifications.show({ color: 'green', message: `System scan “${saved.Name}” saved.` });
          onDone(saved);
        },
        onError: (error) => {
          const byField = fieldErrors(error, FIELDS);
          setErrors(byField ?? {});
          if (!byField) setFormError(error);
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
          maxLength={200}
          value={name}
          onChange={(e) => setName(e.currentTarget.value)}
          error={errors.name}
          data-autofocus
        />
        <Textarea
          label="Targets"
          description="One per line: an address, a range (10.0.0.1-10.0.0.40), a CIDR or a host name, optionally followed by a name."
          required
          autosize
          minRows={3}
          spellCheck={false}
          value={targets}
          onChange={(e) => setTargets(e.currentTarget.value)}
          error={errors.targets}
          styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
        />
        <TargetCheck result={check.data} />
        <Textarea
          label="Exclusions"
          description="Addresses or ranges to leave out, one per line."
          autosize
          minRows={1}
          spellCheck={false}
          value={exclusions}
          onChange={(e) => setExclusions(e.currentTarget.value)}
          error={errors.exclusions}
          styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
        />
        <Group grow align="flex-start">
          <Select
            label="Template"
            placeholder="System scan, well-known ports [S1]"
            data={templates.data ?? []}
            value={templateId}
            onChange={setTemplateId}
            error={errors.template}
            clearable
          />
          <Select
            label="Scan node"
            placeholder="Any node serving system scans"
            data={nodes.data ?? []}
            value={nodeId}
            onChange={setNodeId}
            error={errors.node}
            clearable
          />
        </Group>
        <ScheduleFields state={schedule} error={errors.schedule} />
        <Anchor component={Link} to="/settings#allowed-targets" size="xs">
          Allowed scan targets
        </Anchor>
        <Group justify="flex-end">
          <Button type="submit" loading={save.isPending}>
            {scan ? 'Save' : 'Create scan'}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
